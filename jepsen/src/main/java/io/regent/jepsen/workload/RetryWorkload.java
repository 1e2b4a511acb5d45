package io.regent.jepsen.workload;

import io.regent.api.v1.LeaderKey;
import io.regent.client.RegentClient;
import io.regent.jepsen.client.ClientPool;
import io.regent.jepsen.client.ClientProcess;
import io.regent.jepsen.client.Recorder;
import io.regent.jepsen.history.Op;
import java.util.List;
import java.util.Optional;

/**
 * {@code retry}: contended locks whose holders retry as the shipped libraries do ({@link RetryHolder}), and the
 * cluster's ownership history polled beside them: every 100 ms a linearizable holder read of each name
 * ({@code :read}, value {@code [lease token]} or nil, under process {@link #OBSERVER}). Checked by
 * {@code RetryCheck} (issue #34): no two beliefs in one name at once, no belief while the cluster gives the name
 * to nobody or another lease, no lease holding a name unrenewed past its TTL plus lock-delay.
 */
final class RetryWorkload implements Workload {
  /** The process number of the holder reads: never a client slot's. */
  static final long OBSERVER = 1_000_000;

  private final List<String> names;
  private final long ttlMs;
  private Thread observer;
  private volatile boolean observing = true;

  RetryWorkload(List<String> names, long ttlMs) {
    this.names = List.copyOf(names);
    this.ttlMs = ttlMs;
  }

  @Override
  public String name() {
    return "retry";
  }

  @Override
  public List<String> names() {
    return names;
  }

  @Override
  public synchronized ClientPool.Session session(ClientProcess p) {
    if (observer == null) { // the first process's client reads too (thread-safe, its own failover)
      observer = new Thread(() -> observe(p.client(), p.recorder()), "retry-observer");
      observer.setDaemon(true);
      observer.start();
    }
    RetryHolder h = new RetryHolder(p, ttlMs);
    return new ClientPool.Session() {
      @Override
      public long step() throws InterruptedException {
        p.gate().await();
        return h.round(names.get(p.random().nextInt(names.size())));
      }

      @Override
      public boolean holding() {
        return h.holding();
      }

      @Override
      public void close() {
      }
    };
  }

  /** The holder reads stop once the faults have healed, before the sessions (and the observer's client) close. */
  @Override
  public void quiet(ClientProcess p) throws InterruptedException {
    stopObserving();
  }

  private synchronized void stopObserving() throws InterruptedException {
    observing = false;
    if (observer != null) {
      observer.join(30_000);
    }
  }

  private void observe(RegentClient client, Recorder recorder) {
    while (observing) {
      for (String n : names) {
        read(client, recorder, OBSERVER, n);
      }
      try {
        Thread.sleep(100); // the polling period of the ownership history
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** One linearizable holder read of {@code name}, recorded: {@code [lease token]}, nil, or a :fail. */
  private static void read(RegentClient client, Recorder recorder, long process, String name) {
    recorder.append(process, Op.Type.INVOKE, "read", name, null, null);
    try {
      Optional<LeaderKey> k = client.elections().leader(name);
      recorder.append(process, Op.Type.OK, "read", name,
          k.map(key -> (Object) List.of(key.getLease(), key.getToken())).orElse(null), null);
    } catch (RuntimeException e) {
      recorder.append(process, Op.Type.FAIL, "read", name, null,
          java.util.Map.of(io.regent.jepsen.history.Keyword.of("error"), String.valueOf(e.getMessage())));
    }
  }

  @Override
  public void finalReads(ClientProcess p) {
    names.forEach(n -> read(p.client(), p.recorder(), p.id(), n));
  }

  @Override
  public void close() throws Exception {
    stopObserving();
  }
}
