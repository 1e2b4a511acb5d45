package io.regent.cli;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.GroupWatchResponse;
import io.regent.api.v1.PartitionToken;
import io.regent.client.GroupClient;
import io.regent.client.RegentClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code regent group bench}: the rebalance workload (docs/ownership.md). Simulated members (one watch stream
 * each, releasing what they are asked to at once) share a group; the bench measures, for a join, a leave and
 * a crash (a lease no longer renewed), the time until the assignment is stable again and the log entries
 * that changed the group (the join, leave or expiry entry plus the batched release entries).
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = {"Measures rebalances: P partitions over N members; a join, a leave and a crash.",
        "Prints one line per event: 'EVENT time_ms=T entries=E moved=M' (json with -w json)."})
public final class GroupBenchCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  ClientOptions client;

  @Option(names = "--partitions", defaultValue = "10000", description = "partitions (default: ${DEFAULT-VALUE})")
  int partitions;

  @Option(names = "--members", defaultValue = "100", description = "members before the join (default: ${DEFAULT-VALUE})")
  int members;

  @Option(names = "--ttl", defaultValue = "3s", converter = DurationConverter.class,
      description = "members' lease TTL: a crash is detected after it (default: ${DEFAULT-VALUE})")
  Duration ttl;

  private final Map<String, Sim> sims = new ConcurrentHashMap<>();
  private final Set<Long> changeEntries = ConcurrentHashMap.newKeySet();
  private final ExecutorService releasers = Executors.newFixedThreadPool(8);
  private final ScheduledExecutorService renewer = Executors.newSingleThreadScheduledExecutor();

  /** One simulated member: its lease, its latest view, and the stream that feeds it. */
  private static final class Sim {
    final String id;
    final long lease;
    volatile GroupWatchResponse view = GroupWatchResponse.getDefaultInstance();
    volatile Runnable cancel = () -> { };
    /** Partitions whose release was sent and not answered yet: a new view must not send them again. */
    final Set<Integer> releasing = ConcurrentHashMap.newKeySet();

    Sim(String id, long lease) {
      this.id = id;
      this.lease = lease;
    }
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    String group = "bench-" + System.nanoTime();
    try (RegentClient c = client.connect()) {
      GroupClient groups = new GroupClient(c);
      renewer.scheduleWithFixedDelay(() -> renew(c), ttl.toMillis() / 3, ttl.toMillis() / 3, TimeUnit.MILLISECONDS);
      for (int i = 0; i < members; i++) {
        add(c, groups, group, "m" + i);
      }
      awaitStable(Long.MAX_VALUE);
      Map<Integer, String> before = owners();

      changeEntries.clear();
      long t0 = System.nanoTime();
      add(c, groups, group, "m-new");
      report(out, "join", t0, before, false);

      before = owners();
      Sim leaving = sims.remove("m0");
      changeEntries.clear();
      t0 = System.nanoTime();
      changeEntries.add(groups.leave(group, leaving.id, leaving.lease));
      leaving.cancel.run();
      report(out, "leave", t0, before, false);

      before = owners();
      Sim crashed = sims.remove("m1");
      changeEntries.clear();
      crashed.cancel.run(); // no more renewals: the leader expires the lease after its TTL
      t0 = System.nanoTime();
      report(out, "crash", t0, before, true);
    } finally {
      sims.values().forEach(s -> s.cancel.run());
      renewer.shutdownNow();
      releasers.shutdownNow();
    }
    return ExitCodes.OK;
  }

  private Sim add(RegentClient c, GroupClient groups, String group, String id) {
    Sim s = new Sim(id, c.grant(ttl.toMillis()));
    sims.put(id, s);
    s.cancel = groups.watch(group, id, 0, new StreamObserver<>() {
      @Override
      public void onNext(GroupWatchResponse r) {
        s.view = r;
        if (r.getReleaseCount() > 0) {
          Map<Integer, Long> tokens = new TreeMap<>();
          Set<Integer> release = Set.copyOf(r.getReleaseList());
          r.getOwnedList().stream().filter(p -> release.contains(p.getPartition()) && s.releasing.add(p.getPartition()))
              .forEach(p -> tokens.put(p.getPartition(), p.getToken()));
          if (tokens.isEmpty()) {
            return;
          }
          releasers.execute(() -> {
            try {
              changeEntries.add(groups.release(group, tokens));
            } catch (StatusRuntimeException e) {
              // a move undone meanwhile: the next view says what to do
            } finally {
              s.releasing.removeAll(tokens.keySet());
            }
          });
        }
      }

      @Override
      public void onError(Throwable t) {
      }

      @Override
      public void onCompleted() {
      }
    });
    changeEntries.add(joinRetrying(groups, group, id, s.lease));
    return s;
  }

  /** A join is idempotent per (member, lease): retried while the cluster is slow or changing leader. */
  private long joinRetrying(GroupClient groups, String group, String id, long lease) {
    for (int attempt = 1; ; attempt++) {
      try {
        return groups.join(group, id, partitions, lease).getIndex();
      } catch (StatusRuntimeException e) {
        Status.Code code = e.getStatus().getCode();
        if (attempt == 5 || (code != Status.Code.UNAVAILABLE && code != Status.Code.DEADLINE_EXCEEDED)) {
          throw e;
        }
      }
    }
  }

  private void renew(RegentClient c) {
    List<Long> leases = sims.values().stream().map(s -> s.lease).toList();
    if (!leases.isEmpty()) {
      try {
        c.keepAliveMany(leases, ttl.toMillis() / 3);
      } catch (StatusRuntimeException e) {
        // retried at the next tick
      }
    }
  }

  /** Waits until the members' views cover every partition once, with nothing to release or to receive. */
  private long awaitStable(long deadlineNanos) throws InterruptedException {
    while (System.nanoTime() < deadlineNanos) {
      int owned = 0;
      boolean moving = false;
      for (Sim s : sims.values()) {
        owned += s.view.getOwnedCount();
        moving |= s.view.getReleaseCount() > 0 || s.view.getIncomingCount() > 0 || !s.view.getJoined();
      }
      if (!moving && owned == partitions) {
        return System.nanoTime();
      }
      Thread.sleep(1); // polling the in-process views; the measured time is rounded up by at most this
    }
    throw new IllegalStateException("no stable assignment in time");
  }

  private Map<Integer, String> owners() {
    Map<Integer, String> out = new TreeMap<>();
    for (Sim s : sims.values()) {
      for (PartitionToken p : s.view.getOwnedList()) {
        out.put(p.getPartition(), s.id);
      }
    }
    return out;
  }

  /** Waits for the assignment to settle after {@code event}; a crash's Expire entry is counted as one more. */
  private void report(PrintWriter out, String event, long t0, Map<Integer, String> before, boolean crash)
      throws InterruptedException {
    long stable = awaitStable(t0 + TimeUnit.MINUTES.toNanos(2));
    // the releases of this event may still be answering: let their replies land before counting
    Thread.sleep(50);
    Map<Integer, String> after = owners();
    long moved = after.entrySet().stream().filter(e -> !e.getValue().equals(before.get(e.getKey()))).count();
    int entries = changeEntries.size() + (crash ? 1 : 0);
    double ms = (stable - t0) / 1e6;
    out.println(client.json()
        ? Json.obj().put("event", event).put("time_ms", Math.round(ms)).put("entries", entries).put("moved", moved)
            .toString()
        : String.format("%s time_ms=%.0f entries=%d moved=%d", event, ms, entries, moved));
    out.flush();
  }
}
