package io.regent.bench.load;

import io.regent.bench.load.ClientLoop.Op;
import io.regent.bench.load.Target.Held;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The request-response workloads. Each client works on names under {@code bench/RUN/}, so runs do not
 * interfere. Leases that must live through the run are renewed by a {@link Renewer}.
 */
final class Workloads {
  private Workloads() {
  }

  /** A workload: per-client operations, plus what it sets up and tears down around the run. */
  interface Workload extends AutoCloseable {
    Op op(int client) throws Exception;

    @Override
    default void close() {
    }
  }

  /**
   * {@code campaign}: each service's idiomatic election on the client's own name, timed whole: take it with a
   * new lease ({@link Target#campaignFresh}), then give it up and end the lease ({@link Target#resignAndRevoke}).
   * Regent: 2 log entries; etcd: grant, txn, txn, revoke; bare Ratis: 2 writes.
   */
  static Workload campaign(Target[] t, String prefix, long ttlMs) {
    return client -> {
      String name = prefix + "c" + client;
      long[] lease = {0};
      return new Op() {
        @Override
        public long run() {
          Held held = t[client].campaignFresh(name, ttlMs, "c" + client);
          lease[0] = held.lease();
          t[client].resignAndRevoke(held);
          lease[0] = 0;
          return ClientLoop.TIME_IT;
        }

        @Override
        public void cleanup() {
          if (lease[0] != 0) { // the release failed: end the lease so the name is free for the next round
            long l = lease[0];
            lease[0] = 0;
            t[client].revoke(l);
          }
        }
      };
    };
  }

  /**
   * {@code campaign4}: the four-call cycle on every service (Regent's before the two-entry election, for
   * parity with earlier figures): grant, campaign on the client's own name, resign timed; then an untimed revoke.
   */
  static Workload campaign4(Target[] t, String prefix, long ttlMs) {
    return client -> {
      String name = prefix + "c" + client;
      long[] lease = {0};
      return new Op() {
        @Override
        public long run() {
          lease[0] = t[client].grant(ttlMs);
          t[client].resign(t[client].campaign(name, lease[0], "c" + client));
          return ClientLoop.TIME_IT;
        }

        @Override
        public void cleanup() {
          if (lease[0] != 0) {
            long l = lease[0];
            lease[0] = 0;
            t[client].revoke(l);
          }
        }
      };
    };
  }

  /** Names one {@code campaign-all} operation takes at once. */
  static final int CAMPAIGN_ALL_NAMES = 4;

  /**
   * {@code campaign-all}: taking several names at once, timed whole: grant a lease, take the client's own
   * {@value #CAMPAIGN_ALL_NAMES} names with it in one atomic step ({@link Target#campaignAll}), revoke the lease
   * (which frees them). Regent: 3 log entries (Grant, CampaignAll, Revoke); etcd: grant, one txn, revoke.
   */
  static Workload campaignAll(Target[] t, String prefix, long ttlMs) {
    return client -> {
      List<String> names = new ArrayList<>(CAMPAIGN_ALL_NAMES);
      for (int i = 0; i < CAMPAIGN_ALL_NAMES; i++) {
        names.add(prefix + "a" + client + "-" + i);
      }
      long[] lease = {0};
      return new Op() {
        @Override
        public long run() {
          lease[0] = t[client].grant(ttlMs);
          t[client].campaignAll(names, lease[0], "a" + client);
          long l = lease[0];
          lease[0] = 0;
          t[client].revoke(l);
          return ClientLoop.TIME_IT;
        }

        @Override
        public void cleanup() {
          if (lease[0] != 0) {
            long l = lease[0];
            lease[0] = 0;
            t[client].revoke(l);
          }
        }
      };
    };
  }

  /** {@code leader-read}: client 0 holds one name for the whole run; every client reads its holder. */
  static Workload leaderRead(Target[] t, String prefix, long ttlMs) {
    String name = prefix + "read";
    long lease = t[0].grant(ttlMs);
    t[0].campaign(name, lease, "reader-target");
    Renewer renewer = new Renewer(ttlMs);
    renewer.keep(t[0], lease);
    return new Workload() {
      @Override
      public Op op(int client) {
        return () -> {
          if (!t[client].leaderRead(name)) {
            throw new IllegalStateException("no holder for " + name);
          }
          return ClientLoop.TIME_IT;
        };
      }

      @Override
      public void close() {
        renewer.close();
        t[0].revoke(lease);
      }
    };
  }

  /** {@code fresh-token}: each client holds its own name and asks for a new token, checking it grows. */
  static Workload freshToken(Target[] t, String prefix, long ttlMs) {
    Renewer renewer = new Renewer(ttlMs);
    Map<Integer, Long> leases = new ConcurrentHashMap<>();
    return new Workload() {
      @Override
      public Op op(int client) {
        long lease = t[client].grant(ttlMs);
        leases.put(client, lease);
        renewer.keep(t[client], lease);
        Held[] held = {t[client].campaign(prefix + "c" + client, lease, "c" + client)};
        return () -> {
          Held next = t[client].freshToken(held[0]);
          if (next.token() <= held[0].token()) {
            throw new IllegalStateException("token did not grow: " + held[0].token() + " -> " + next.token());
          }
          held[0] = next;
          return ClientLoop.TIME_IT;
        };
      }

      @Override
      public void close() {
        renewer.close();
        leases.forEach((client, lease) -> t[client].revoke(lease));
      }
    };
  }

  /**
   * {@code handover}: every client queues for one name with a fresh lease; the holder resigns at once.
   * Recorded: time from the start of a resign to the moment the next holder's campaign returns.
   */
  static Workload handover(Target[] t, String prefix, long ttlMs) {
    String name = prefix + "handover";
    AtomicLong lastResign = new AtomicLong(-1);
    return client -> {
      long[] lease = {0};
      return new Op() {
        @Override
        public long run() {
          lease[0] = t[client].grant(ttlMs);
          Held held = t[client].contend(name, lease[0], "c" + client);
          long elected = System.nanoTime();
          long since = lastResign.get(); // only the holder touches it: the service serializes holders
          lastResign.set(System.nanoTime());
          t[client].resign(held);
          return since < 0 ? ClientLoop.SKIP : elected - since;
        }

        @Override
        public void cleanup() {
          if (lease[0] != 0) {
            long l = lease[0];
            lease[0] = 0;
            t[client].revoke(l);
          }
        }
      };
    };
  }
}
