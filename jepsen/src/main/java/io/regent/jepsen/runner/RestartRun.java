package io.regent.jepsen.runner;

import io.grpc.StatusRuntimeException;
import io.regent.api.v1.LeaseInfo;
import io.regent.api.v1.StatusResponse;
import io.regent.client.RegentClient;
import io.regent.jepsen.checker.CatchUpChecker;
import io.regent.jepsen.checker.CatchUpChecker.Restart;
import io.regent.jepsen.client.Deadline;
import io.regent.jepsen.cluster.Cluster;
import io.regent.jepsen.cluster.ClusterSpec;
import io.regent.jepsen.cluster.Node;
import io.regent.jepsen.cluster.Progress;
import io.regent.jepsen.workload.MixedWrites;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * {@code jepsen/run restart} (issue #40): under {@link MixedWrites}, one node at a time — chosen at random — is
 * {@code kill -9}ed, half the time 0–500 ms after it wrote a snapshot, else at a random moment, and restarted
 * {@link #DOWN_MS} later on its data. Each restart is then watched: when the node answers again, the others'
 * highest commit index is the target its own commit index must reach within the bound ({@link CatchUpChecker}): it
 * then holds every entry committed while it was away and knows them committed. Its applied index is recorded
 * beside, not judged: applying them is CPU-bound, and this machine's load (other builds) is not the subject. After
 * each catch-up the acknowledged writes are checked: every lease granted in an acknowledged call and not revoked
 * still exists, no acknowledged revoke is undone. A restart that misses the bound is watched for
 * {@code watchMs} more (does it come back by itself?) and, with {@code stopAtFirstLate}, ends the run: the run then
 * says after how many kills main wedged. Writes {@code STORE/restart/<timestamp>/results.json} and the node logs.
 */
final class RestartRun {
  /** How long a killed node stays down, ms (the operator restarted it 2 s later). */
  static final long DOWN_MS = 2000;
  /** How long to wait for a node's next snapshot before killing it anyway, ms. */
  static final long SNAPSHOT_WAIT_MS = 60_000;
  /** How long a restarted node may take to answer at all (JVM start, log replay), ms. */
  static final long ANSWER_MS = 60_000;
  private static final long POLL_MS = 100;

  /**
   * What to run. {@code boundMs}: catch-up bound once the node answers; {@code extraArgs}: for every {@code regent
   * server}; {@code jvmArgs}: for every server's JVM (e.g. a {@code -Draft.*} Ratis setting, docs/ratis.md §17).
   */
  record Options(int nodes, Duration timeLimit, int maxKills, int workers, long snapshotThreshold, long boundMs,
      long watchMs, boolean stopAtFirstLate, long seed, String network, Path storeRoot, Path jar,
      List<String> extraArgs, List<String> jvmArgs) {
  }

  private final Options o;
  private final Random random;

  RestartRun(Options o) {
    this.o = o;
    this.random = new Random(o.seed());
  }

  /** Runs it; returns the results (as written to results.json), {@code valid?} one of valid, invalid, unknown. */
  Map<String, Object> run() throws IOException, InterruptedException {
    Path dir = ClusterRun.storeDir(o.storeRoot(), "restart");
    Map<String, Object> results = new LinkedHashMap<>();
    results.put("store", dir.toString());
    results.put("nodes", o.nodes());
    results.put("seed", o.seed());
    results.put("bound-ms", o.boundMs());
    results.put("snapshot-threshold", o.snapshotThreshold());
    results.put("server-args", o.extraArgs());
    results.put("server-jvm-args", o.jvmArgs());
    return ClusterRun.run(dir, o.jar(), results, (jar, store, data) -> {
      List<String> args = new ArrayList<>(List.of("--snapshot-threshold", Long.toString(o.snapshotThreshold())));
      args.addAll(o.extraArgs());
      List<String> jvm = new ArrayList<>(ClusterSpec.DEFAULT_JVM);
      jvm.addAll(o.jvmArgs());
      return new ClusterSpec(o.nodes(), false, o.network(), jar, store, data, jvm, args);
    }, (cluster, data, out) -> {
      try (Progress progress = new Progress(cluster, data)) {
        drive(cluster, progress, out);
      }
    });
  }

  private void drive(Cluster cluster, Progress progress, Map<String, Object> results)
      throws InterruptedException {
    long end = System.nanoTime() + o.timeLimit().toNanos();
    List<Restart> restarts = new ArrayList<>();
    List<Map<String, Object>> rows = new ArrayList<>();
    List<String> lost = new ArrayList<>();
    try (MixedWrites load = new MixedWrites(cluster.endpoints(), o.workers());
         RegentClient reader = RegentClient.connect(cluster.endpoints())) {
      while (System.nanoTime() < end && restarts.size() < o.maxKills()) {
        Node victim = cluster.nodes().get(random.nextInt(cluster.nodes().size()));
        Map<String, Object> row = new LinkedHashMap<>();
        Restart r = killAndWatch(victim, progress, row);
        restarts.add(r);
        rows.add(row);
        Optional<List<String>> lostNow = lostWrites(load, reader);
        lostNow.ifPresent(lost::addAll);
        // per restart, so that an interrupted run still tells
        row.put("lost-writes", lostNow.map(l -> (Object) l.size()).orElse("unchecked: the list failed"));
        System.err.println("jepsen restart " + restarts.size() + ": " + row);
        if (!r.inTime(o.boundMs()) && o.stopAtFirstLate()) {
          break;
        }
      }
      results.put("acknowledged-calls", load.acknowledged());
      results.put("failed-calls", load.failed());
    }
    CatchUpChecker.Outcome out = CatchUpChecker.judge(restarts, o.boundMs(), lost);
    results.put("valid?", out.verdict().name().toLowerCase(java.util.Locale.ROOT));
    results.put("explanation", out.explanation());
    results.put("kills", restarts.size());
    results.put("late", out.late());
    results.put("restarts", rows);
  }

  /** One kill, the restart and the watch of its catch-up; {@code row} gets what was seen. */
  private Restart killAndWatch(Node victim, Progress progress, Map<String, Object> row) throws InterruptedException {
    boolean afterSnapshot = random.nextBoolean();
    row.put("node", victim.id());
    if (afterSnapshot) {
      long before = progress.snapshotIndex(victim);
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SNAPSHOT_WAIT_MS);
      while (progress.snapshotIndex(victim) <= before && System.nanoTime() < deadline) {
        TimeUnit.MILLISECONDS.sleep(20); // polling the snapshot directory
      }
      afterSnapshot = progress.snapshotIndex(victim) > before;
      row.put("snapshot-index", progress.snapshotIndex(victim));
      TimeUnit.MILLISECONDS.sleep(random.nextInt(501));
    } else {
      TimeUnit.MILLISECONDS.sleep(random.nextInt(3000));
    }
    row.put("after-snapshot?", afterSnapshot);
    row.put("applied-before-kill", progress.local(victim).map(StatusResponse::getAppliedIndex).orElse(-1L));
    victim.kill();
    TimeUnit.MILLISECONDS.sleep(DOWN_MS);
    try {
      victim.start();
    } catch (IOException e) {
      throw new IllegalStateException("could not restart " + victim.id(), e);
    }
    long started = System.nanoTime();
    Optional<StatusResponse> first = Optional.empty();
    while (first.isEmpty() && System.nanoTime() - started < TimeUnit.MILLISECONDS.toNanos(ANSWER_MS)) {
      first = progress.local(victim);
      if (first.isEmpty()) {
        TimeUnit.MILLISECONDS.sleep(POLL_MS);
      }
    }
    if (first.isEmpty()) {
      row.put("answered-ms", null);
      return new Restart(victim.id(), afterSnapshot, -1, OptionalLong.empty(), OptionalLong.empty());
    }
    long answered = System.nanoTime();
    long target = progress.commitIndexOfOthers(victim);
    row.put("answered-ms", ms(answered - started));
    row.put("applied-on-answer", first.get().getAppliedIndex());
    row.put("target-commit-index", target);
    long limit = TimeUnit.MILLISECONDS.toNanos(o.boundMs());
    StatusResponse seen = first.get();
    boolean lateSeen = false;
    while (seen.getCommitIndex() < target
        && System.nanoTime() - answered < limit + TimeUnit.MILLISECONDS.toNanos(o.watchMs())) {
      if (!lateSeen && System.nanoTime() - answered > limit) {
        lateSeen = true;
        row.put("late-commit-index", seen.getCommitIndex());
        row.put("late-leader-view", progress.leaderView(victim).orElse("no leader answered"));
      }
      TimeUnit.MILLISECONDS.sleep(POLL_MS);
      seen = progress.local(victim).orElse(seen);
    }
    boolean reached = seen.getCommitIndex() >= target;
    OptionalLong caughtUp = reached ? OptionalLong.of(ms(System.nanoTime() - answered)) : OptionalLong.empty();
    row.put("caught-up-ms", caughtUp.isPresent() ? caughtUp.getAsLong() : null);
    row.put("applied-then", seen.getAppliedIndex());
    if (!reached) {
      row.put("commit-index-at-end-of-watch", seen.getCommitIndex());
      row.put("leader-view-at-end-of-watch", progress.leaderView(victim).orElse("no leader answered"));
    }
    return new Restart(victim.id(), afterSnapshot, target, OptionalLong.of(ms(answered - started)), caughtUp);
  }

  /**
   * Acknowledged writes the cluster no longer shows: a lease alive in the load's books before and after a
   * linearizable list of every lease but absent from it, or a lease whose revoke was acknowledged before the
   * list but present in it. Empty when the list fails (checked again after the next restart).
   */
  private static Optional<List<String>> lostWrites(MixedWrites load, RegentClient reader) {
    Set<Long> aliveBefore = load.alive();
    Set<Long> revokedBefore = load.revoked();
    Set<Long> listed = new HashSet<>();
    try {
      for (LeaseInfo l : Deadline.call(Duration.ofSeconds(20), () -> reader.leases().list())) {
        listed.add(l.getId());
      }
    } catch (StatusRuntimeException e) {
      return Optional.empty();
    }
    Set<Long> aliveAfter = load.alive();
    List<String> lost = new ArrayList<>();
    for (long id : aliveBefore) {
      if (aliveAfter.contains(id) && !listed.contains(id)) {
        lost.add("lease " + id + " granted (acknowledged) but gone");
      }
    }
    for (long id : revokedBefore) {
      if (listed.contains(id)) {
        lost.add("lease " + id + " revoked (acknowledged) but listed");
      }
    }
    return Optional.of(lost);
  }

  private static long ms(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos);
  }
}
