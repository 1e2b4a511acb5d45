package io.regent.jepsen.runner;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.client.LeaseKeeper;
import io.regent.client.RegentClient;
import io.regent.jepsen.checker.LeaseSurvival;
import io.regent.jepsen.cluster.Cluster;
import io.regent.jepsen.cluster.ClusterSpec;
import io.regent.jepsen.cluster.Node;
import io.regent.jepsen.cluster.Probe;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * {@code jepsen/run pause}: the leader-pause check. Leases are kept alive with the shipped {@link LeaseKeeper} by
 * clients that start at every node (each client has every endpoint, its own first: it fails over as shipped);
 * the Raft leader is stopped with {@code SIGSTOP} for 3 TTLs, then resumed, {@code rounds} times; a separate
 * client asks every {@link #WATCH_MS} ms whether each lease still exists. {@link LeaseSurvival} judges: no
 * lease may expire, no keeper may step down, and in particular no lease may expire within one TTL of its last
 * acknowledged keepalive (a spurious expiry). The keepers suspend while in doubt (docs/architecture.md §3.6), as
 * {@code regent lock} does, unless {@code suspend} is off: then the 2/3-TTL deadline is their step-down, which a
 * failover longer than that fails. Writes {@code results.json} and the node logs under
 * {@code STORE/pause/<timestamp>/}.
 */
final class PauseCheck {
  /** Interval between two existence checks of every lease, ms. */
  static final long WATCH_MS = 100;

  private final int nodes;
  private final long ttlMs;
  private final int rounds;
  private final int leasesPerNode;
  private final String network;
  private final Path storeRoot;
  private final Path jarSource;
  private final boolean suspend;

  PauseCheck(int nodes, long ttlMs, int rounds, int leasesPerNode, String network, Path storeRoot, Path jar,
             boolean suspend) {
    this.suspend = suspend;
    this.nodes = nodes;
    this.ttlMs = ttlMs;
    this.rounds = rounds;
    this.leasesPerNode = leasesPerNode;
    this.network = network;
    this.storeRoot = storeRoot;
    this.jarSource = jar;
  }

  /** Runs the check; returns the outcome and where it was written. */
  Map<String, Object> run() throws IOException, InterruptedException {
    Path dir = ClusterRun.storeDir(storeRoot, "pause");
    Map<String, Object> results = new LinkedHashMap<>();
    results.put("store", dir.toString());
    results.put("ttl-ms", ttlMs);
    results.put("suspend?", suspend);
    return ClusterRun.run(dir, jarSource, results,
        (jar, store, data) -> new ClusterSpec(nodes, false, network, jar, store, data, ClusterSpec.DEFAULT_JVM,
            List.of()),
        (cluster, data, out) -> drive(cluster, out));
  }

  private void drive(Cluster cluster, Map<String, Object> results) throws InterruptedException, IOException {
    long start = System.nanoTime();
    List<String> endpoints = cluster.endpoints();
    List<RegentClient> clients = new ArrayList<>();
    List<Kept> kept = new ArrayList<>();
    ScheduledExecutorService watcher = Executors.newSingleThreadScheduledExecutor();
    Map<Long, Long> expirySeen = new ConcurrentHashMap<>();
    try (RegentClient watch = RegentClient.connect(endpoints)) {
      for (int i = 0; i < cluster.nodes().size(); i++) {
        List<String> rotated = new ArrayList<>(endpoints.subList(i, endpoints.size()));
        rotated.addAll(endpoints.subList(0, i));
        RegentClient c = RegentClient.connect(rotated);
        clients.add(c);
        for (int j = 0; j < leasesPerNode; j++) {
          Kept k = new Kept(cluster.nodes().get(i).id());
          LeaseKeeper.Options o = LeaseKeeper.options();
          if (suspend) {
            o.suspendWhenInDoubt(reason -> k.suspended(), k::resumed);
          }
          k.keeper = LeaseKeeper.grant(c, ttlMs, reason -> k.stepDown = reason, o);
          kept.add(k);
        }
      }
      watcher.scheduleWithFixedDelay(() -> {
        for (Kept k : kept) {
          if (!expirySeen.containsKey(k.keeper.leaseId())) {
            try {
              watch.leases().timeToLive(k.keeper.leaseId());
            } catch (StatusRuntimeException e) {
              if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
                expirySeen.putIfAbsent(k.keeper.leaseId(), System.nanoTime());
              }
            }
          }
        }
      }, 0, WATCH_MS, TimeUnit.MILLISECONDS);
      TimeUnit.MILLISECONDS.sleep(ttlMs); // steady renewals first
      List<Map<String, Object>> pauses = new ArrayList<>();
      for (int r = 0; r < rounds; r++) {
        Optional<String> leader = Probe.raftLeader(cluster);
        if (leader.isEmpty()) {
          continue;
        }
        Node n = cluster.node(leader.get());
        long from = System.nanoTime();
        n.pause();
        TimeUnit.MILLISECONDS.sleep(3 * ttlMs);
        n.resume();
        long to = System.nanoTime();
        boolean recovered = Probe.awaitHealthy(cluster, Duration.ofSeconds(60), true).isEmpty();
        pauses.add(Map.of("node", n.id(), "from-ms", ms(from - start), "to-ms", ms(to - start),
            "recovered?", recovered));
        TimeUnit.MILLISECONDS.sleep(ttlMs); // every lease renewed by the new leader before the next round
      }
      watcher.shutdown();
      watcher.awaitTermination(30, TimeUnit.SECONDS);
      List<LeaseSurvival.Lease> leases = new ArrayList<>();
      List<Map<String, Object>> rows = new ArrayList<>();
      long validity = TimeUnit.MILLISECONDS.toNanos(ttlMs * 2 / 3);
      for (Kept k : kept) {
        Long seen = expirySeen.get(k.keeper.leaseId());
        LeaseSurvival.Lease l = new LeaseSurvival.Lease(k.keeper.leaseId(), k.via,
            k.keeper.deadlineNanos() - validity, seen == null ? OptionalLong.empty() : OptionalLong.of(seen),
            k.stepDown, k.suspensions(), k.longestSuspension(System.nanoTime()));
        leases.add(l);
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("lease", l.id());
        row.put("via", l.via());
        row.put("last-ack-sent-ms", ms(l.lastAckSentNanos() - start));
        row.put("expiry-seen-ms", seen == null ? null : ms(seen - start));
        row.put("spurious?", l.spurious(TimeUnit.MILLISECONDS.toNanos(ttlMs)));
        row.put("step-down", k.stepDown);
        row.put("suspensions", l.suspensions());
        row.put("longest-suspension-ms", ms(l.longestSuspensionNanos()));
        rows.add(row);
      }
      LeaseSurvival.Outcome o = LeaseSurvival.judge(leases, TimeUnit.MILLISECONDS.toNanos(ttlMs), pauses.size());
      results.put("valid?", o.verdict().name().toLowerCase(java.util.Locale.ROOT));
      results.put("explanation", o.explanation());
      results.put("spurious-expiries", o.spurious());
      results.put("expiries", o.expired());
      results.put("step-downs", o.stepDowns());
      results.put("suspensions", o.suspensions());
      results.put("longest-suspension-ms", ms(o.longestSuspensionNanos()));
      results.put("pauses", pauses);
      results.put("leases", rows);
    } finally {
      watcher.shutdownNow();
      for (Kept k : kept) {
        k.keeper.close();
      }
      clients.forEach(RegentClient::close);
    }
  }

  private static long ms(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos);
  }

  /** One kept lease and what its keeper said. */
  private static final class Kept {
    final String via;
    volatile LeaseKeeper keeper;
    volatile String stepDown;
    private int suspensions; // guarded by this
    private long suspendedSince = -1; // guarded by this; -1 while not suspended
    private long longest; // guarded by this

    Kept(String via) {
      this.via = via;
    }

    synchronized void suspended() {
      suspensions++;
      suspendedSince = System.nanoTime();
    }

    synchronized void resumed() {
      longest = Math.max(longest, System.nanoTime() - suspendedSince);
      suspendedSince = -1;
    }

    synchronized int suspensions() {
      return suspensions;
    }

    /** The longest suspension, one still going counted until {@code now}, ns. */
    synchronized long longestSuspension(long now) {
      return suspendedSince < 0 ? longest : Math.max(longest, now - suspendedSince);
    }
  }
}
