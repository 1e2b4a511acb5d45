package io.regent.jepsen.runner;

import io.grpc.StatusRuntimeException;
import io.regent.client.RegentClient;
import io.regent.jepsen.client.Deadline;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code jepsen/run frozen}: writes while the Raft leader is frozen (issue #40 item 6, docs/ratis.md §10). Each
 * round stops the leader with {@code SIGSTOP}; sends {@code stuck} grants through one follower within
 * {@link #EARLY_SPREAD_MS} ms (they are forwarded to the frozen leader); from the freeze on sends a revoke every
 * {@link #REVOKE_EVERY_MS} ms through the live nodes, in turn; at {@link #LATE_AT_MS} ms after the freeze (or,
 * when the bound leaves the election out, once a revoke has been acknowledged, if that is later) sends one more
 * grant through the same follower; resumes the leader after {@code pauseMs}, or once the late grant is answered or
 * twice its bound has passed, if that is later. {@link FrozenLeaderVerdict}
 * judges the rounds: the late grant answered within 1 s of its send, and the first revoke within 2 s of the
 * freeze. Writes {@code results.json} and the node logs under {@code STORE/frozen/<timestamp>/}.
 */
final class FrozenLeaderRun {
  /** The early grants are sent within this many ms of the freeze (the scenario: 0.3 s). */
  static final long EARLY_SPREAD_MS = 300;
  /** When the late grant is sent, ms after the freeze (the scenario: +3 s). */
  static final long LATE_AT_MS = 3_000;
  /** Interval between two revokes through the live nodes, ms (the scenario: 40 ms). */
  static final long REVOKE_EVERY_MS = 40;
  /** How long a call of this run may wait for its answer before it counts as hanging. */
  static final Duration CALL = Duration.ofSeconds(30);
  /** TTL of the grants, ms: they outlive a round. */
  static final long TTL_MS = 120_000;

  /**
   * What a run does: node count, rounds, grants stuck on the frozen leader, how long it stays frozen, and whether
   * the revoke's bound includes the election ({@link FrozenLeaderVerdict#judge(List, boolean)}).
   */
  record Options(int nodes, int rounds, int stuck, long pauseMs, boolean electionIncluded, String network, Path store,
                 Path jar) {
  }

  private final Options o;

  FrozenLeaderRun(Options o) {
    this.o = o;
  }

  /** Runs the rounds on a fresh cluster; returns the outcome and where it was written. */
  Map<String, Object> run() throws IOException, InterruptedException {
    Path dir = ClusterRun.storeDir(o.store(), "frozen");
    Map<String, Object> results = new LinkedHashMap<>();
    results.put("store", dir.toString());
    results.put("nodes", o.nodes());
    results.put("stuck-grants", o.stuck());
    results.put("pause-ms", o.pauseMs());
    return ClusterRun.run(dir, o.jar(), results,
        (jar, store, data) -> new ClusterSpec(o.nodes(), false, o.network(), jar, store, data,
            ClusterSpec.DEFAULT_JVM, List.of()),
        (cluster, data, out) -> drive(cluster, out));
  }

  private void drive(Cluster cluster, Map<String, Object> results) throws InterruptedException {
    List<FrozenLeaderVerdict.Round> rounds = new ArrayList<>();
    List<Map<String, Object>> rows = new ArrayList<>();
    for (int r = 0; r < o.rounds(); r++) {
      Optional<Node> leader = Probe.raftLeaderNode(cluster);
      if (leader.isEmpty()) {
        throw new IllegalStateException("round " + (r + 1) + ": no Raft leader known before the freeze");
      }
      Map<String, Object> row = new LinkedHashMap<>();
      rounds.add(round(cluster, leader.get(), row));
      rows.add(row);
      Optional<String> down = Probe.awaitHealthy(cluster, Duration.ofSeconds(60), true);
      if (down.isPresent()) {
        throw new IllegalStateException("round " + (r + 1) + ": the cluster did not recover: " + down.get());
      }
    }
    FrozenLeaderVerdict.Outcome v = FrozenLeaderVerdict.judge(rounds, o.electionIncluded());
    results.put("valid?", v.valid() ? "valid" : "invalid");
    results.put("explanation", v.explanation());
    results.put("rounds", rows);
  }

  /** One freeze; fills {@code row} with its figures. */
  private FrozenLeaderVerdict.Round round(Cluster cluster, Node frozen, Map<String, Object> row)
      throws InterruptedException {
    List<Node> live = cluster.nodes().stream().filter(n -> n != frozen).toList();
    List<RegentClient> liveClients = new ArrayList<>();
    ExecutorService callers = Executors.newCachedThreadPool();
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    try {
      for (Node n : live) {
        liveClients.add(RegentClient.connect(List.of(n.endpoint())));
      }
      RegentClient via = liveClients.get(0); // one endpoint: its writes go through that follower
      via.leases().grant(TTL_MS); // the follower's Ratis clients are connected to the leader before the freeze
      List<Long> leases = new ArrayList<>();
      int revokes = (int) (o.pauseMs() / REVOKE_EVERY_MS) + 1;
      for (int k = 0; k < revokes; k++) {
        leases.add(liveClients.get(k % liveClients.size()).leases().grant(TTL_MS));
      }

      long frozenAtEpochMs = System.currentTimeMillis();
      frozen.pause();
      long t0 = System.nanoTime();
      List<CompletableFuture<Long>> early = new ArrayList<>();
      for (int k = 0; k < o.stuck(); k++) {
        early.add(grant(via, callers));
        TimeUnit.MILLISECONDS.sleep(EARLY_SPREAD_MS / Math.max(1, o.stuck())); // the scenario's pace, not a wait
      }
      AtomicLong firstRevokeMs = new AtomicLong(-1);
      AtomicLong firstRevokeEpochMs = new AtomicLong(-1);
      CountDownLatch firstRevoke = new CountDownLatch(1);
      AtomicInteger next = new AtomicInteger();
      timer.scheduleAtFixedRate(() -> {
        int k = next.getAndIncrement();
        if (k < leases.size()) {
          callers.execute(() -> {
            try {
              Deadline.call(CALL, () -> {
                liveClients.get(k % liveClients.size()).leases().revoke(leases.get(k));
                return null;
              });
              if (firstRevokeMs.compareAndSet(-1, ms(System.nanoTime() - t0))) {
                firstRevokeEpochMs.set(System.currentTimeMillis());
              }
              firstRevoke.countDown();
            } catch (StatusRuntimeException e) {
              // refused while no leader answered: the next revoke goes 40 ms later
            }
          });
        }
      }, 0, REVOKE_EVERY_MS, TimeUnit.MILLISECONDS);

      TimeUnit.NANOSECONDS.sleep(Math.max(0, t0 + TimeUnit.MILLISECONDS.toNanos(LATE_AT_MS) - System.nanoTime()));
      if (!o.electionIncluded()) {
        // a late election would charge its own length to the late grant, whose bound is about a write sent once a
        // new leader serves: wait for a revoke through the live nodes to be acknowledged, even past the planned
        // resume (a starved machine's first new leader can be deposed and the next elected seconds later)
        firstRevoke.await(CALL.toMillis(), TimeUnit.MILLISECONDS);
      }
      long lateSent = System.nanoTime();
      CompletableFuture<Long> late = grant(via, callers);
      TimeUnit.NANOSECONDS.sleep(Math.max(0, t0 + TimeUnit.MILLISECONDS.toNanos(o.pauseMs()) - System.nanoTime()));
      try {
        // the late grant is judged with the leader still frozen: its bound is about writes stuck there
        late.get(2 * FrozenLeaderVerdict.LATE_GRANT_MS, TimeUnit.MILLISECONDS);
      } catch (ExecutionException | TimeoutException e) {
        // refused, or past its bound: judged below
      }
      frozen.resume();
      long lateMs = outcome(late, lateSent, row, "late-grant");
      timer.shutdownNow();
      long earlyGranted = 0;
      long earlyRefused = 0;
      for (CompletableFuture<Long> f : early) {
        if (outcome(f, t0, row, "early") >= 0) {
          earlyGranted++;
        } else {
          earlyRefused++;
        }
      }
      List<Path> logs = live.stream().map(Node::log).toList();
      long electedMs = ElectionLog.firstWonSince(logs, frozenAtEpochMs).orElse(frozenAtEpochMs - 1) - frozenAtEpochMs;
      // the leader that acknowledged the first revoke: the last one elected before it
      long servingElectedMs = firstRevokeEpochMs.get() < 0 ? electedMs
          : ElectionLog.lastWonBetween(logs, frozenAtEpochMs, firstRevokeEpochMs.get()).orElse(frozenAtEpochMs - 1)
              - frozenAtEpochMs;
      row.put("frozen", frozen.id());
      row.put("via", live.get(0).id());
      row.put("elected-ms", electedMs);
      row.put("serving-leader-elected-ms", servingElectedMs);
      row.put("first-revoke-ms", firstRevokeMs.get());
      row.put("late-sent-ms", ms(lateSent - t0));
      row.put("late-grant-ms", lateMs);
      row.put("early-granted", earlyGranted);
      row.put("early-refused", earlyRefused);
      return new FrozenLeaderVerdict.Round(frozen.id(), lateMs, firstRevokeMs.get(), servingElectedMs);
    } finally {
      if (frozen.paused()) {
        frozen.resume();
      }
      timer.shutdownNow();
      callers.shutdownNow();
      liveClients.forEach(RegentClient::close);
    }
  }

  /** A grant through {@code via}; completes with the {@link System#nanoTime()} of its acknowledgement. */
  private static CompletableFuture<Long> grant(RegentClient via, ExecutorService callers) {
    return CompletableFuture.supplyAsync(() -> {
      Deadline.call(CALL, () -> via.leases().grant(TTL_MS));
      return System.nanoTime();
    }, callers);
  }

  /**
   * Waits for {@code call}'s acknowledgement; returns its latency from {@code sentAt} in ms, or -1 when it was
   * refused or hung (the reason goes to {@code row} under {@code name-error}).
   */
  private static long outcome(CompletableFuture<Long> call, long sentAt, Map<String, Object> row, String name)
      throws InterruptedException {
    try {
      return ms(call.get(CALL.toSeconds() + 5, TimeUnit.SECONDS) - sentAt);
    } catch (ExecutionException | TimeoutException e) {
      row.put(name + "-error", String.valueOf(e.getCause() == null ? e : e.getCause()));
      return -1;
    }
  }

  private static long ms(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos);
  }
}
