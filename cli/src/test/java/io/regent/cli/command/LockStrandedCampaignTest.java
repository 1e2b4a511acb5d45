package io.regent.cli.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.StatusResponse;
import io.regent.cli.cluster.Launcher;
import io.regent.cli.cluster.ProcessCluster;
import io.regent.client.RegentClient;
import io.regent.process.ChildProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A waiting {@code regent lock} keeps the lock it is told it holds when the node that served its first blocking
 * campaign comes back (issue #34, first scenario; docs/api.md "Attempts").
 *
 * <p>A holds {@code jobs}; C and D wait for it, their blocking campaigns on the Raft leader (their endpoint lists
 * start there). The leader is stopped with SIGSTOP; the clients' channel keepalive (10 s + 5 s, not settable from
 * the CLI) gives up on it and their campaigns go on at another node. A releases; C prints {@code locked}. Then the
 * old leader is resumed: it sees C's first call cancelled and runs that call's cleanup (Withdraw, then Resign).
 * That cleanup belongs to an attempt C has left behind: C must still hold {@code jobs}, as the cluster says, and D
 * must not be told it holds it while C runs.
 */
@Timeout(180)
@Tag("cluster")
class LockStrandedCampaignTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  /** How long C's holding is watched once the old leader serves again: its cleanup runs within a second. */
  private static final Duration WATCH = Duration.ofSeconds(8);

  private ProcessCluster cluster;
  private final List<ChildProcess> locks = new ArrayList<>();
  private PausableCluster paused;

  @BeforeEach
  void startCluster() throws Exception {
    paused = PausableCluster.start("regent-lock-stranded-");
    cluster = paused.cluster();
  }

  @AfterEach
  void stopAll() throws Exception {
    try {
      locks.forEach(ChildProcess::close);
    } finally {
      paused.close();
    }
  }

  @Test
  void theCleanupOfAStrandedCampaignLeavesTheNewHolderItsLock() throws Exception {
    try (RegentClient c = RegentClient.connect(cluster.endpoints())) {
      StatusResponse s = await().atMost(WAIT).ignoreExceptions().until(() -> c.cluster().status(),
          r -> !r.getLeader().isEmpty());
      int leaderIdx = indexOf(s.getLeader());
      ProcessCluster.Node leader = cluster.nodes().get(leaderIdx);
      // the leader first: every call of the lock commands starts there, their blocking campaigns too
      List<String> endpoints = new ArrayList<>(List.of(leader.apiAddress()));
      cluster.nodes().stream().filter(n -> n != leader).forEach(n -> endpoints.add(n.apiAddress()));

      ChildProcess a = lock("A", "5s", endpoints);
      a.awaitLine(l -> l.startsWith("locked jobs "), WAIT);
      ChildProcess lockC = lock("C", "10s", endpoints);
      await("C queued on the leader").atMost(WAIT).until(() -> candidatesWaiting(leaderIdx) == 1);
      ChildProcess lockD = lock("D", "10s", endpoints);
      await("C and D queued on the leader").atMost(WAIT).until(() -> candidatesWaiting(leaderIdx) == 2);

      paused.pause(leader);
      await("a new leader").atMost(WAIT).ignoreExceptions().until(() -> c.cluster().status(),
          r -> !r.getLeader().isEmpty() && !r.getLeader().equals(leader.id()));
      assertThat(a.terminate(WAIT)).as("A's exit code after SIGTERM").isZero();
      String locked = lockC.awaitLine(l -> l.startsWith("locked jobs "), WAIT);
      long leaseC = Long.parseLong(locked.substring(locked.indexOf(" lease=") + " lease=".length()).trim());
      assertThat(holderLease(c)).as("the cluster's holder once C printed locked").contains(leaseC);

      paused.resume();
      try (RegentClient viaOld = RegentClient.connect(leader.apiAddress())) {
        await("the old leader serving again").atMost(WAIT).ignoreExceptions()
            .until(() -> viaOld.cluster().status().getCommitIndex() > 0);
      }
      try {
        // must hold throughout: one miss is the failure, so the wait ends soon after the watch
        await("C holding jobs while the old leader cleans up").during(WATCH).atMost(WATCH.plusSeconds(3))
            .until(() -> lockC.alive() && holderLease(c).equals(Optional.of(leaseC)) && lockedLines(lockD) == 0);
      } catch (ConditionTimeoutException e) {
        throw new AssertionError("C (lease " + leaseC + ") printed locked and still runs: " + lockC.alive()
            + "; the cluster's holder of jobs now: " + holderOrError(c) + "; D's lines: " + lockD.lines(), e);
      }
      assertThat(lockC.lines()).noneMatch(l -> l.startsWith("lost "));
    }
  }

  private static String holderOrError(RegentClient c) {
    try {
      return holderLease(c).map(l -> "lease " + l).orElse("nobody");
    } catch (RuntimeException e) {
      return "unread (" + e + ")";
    }
  }

  /** {@code regent lock jobs --ttl TTL -- sleep 1000}, talking to {@code endpoints} in that order. */
  private ChildProcess lock(String label, String ttl, List<String> endpoints) throws Exception {
    List<String> cmd = new ArrayList<>(Launcher.javaCommand(Launcher.CLIENT_JVM));
    cmd.addAll(List.of("lock", "jobs", "--ttl", ttl, "--endpoints", String.join(",", endpoints), "--",
        "sleep", "1000"));
    ChildProcess p = ChildProcess.builder(label, cmd).captureOutput(l -> System.out.println("[" + label + "] " + l))
        .start();
    locks.add(p);
    return p;
  }

  private int indexOf(String id) {
    for (int i = 0; i < cluster.nodes().size(); i++) {
      if (cluster.nodes().get(i).id().equals(id)) {
        return i;
      }
    }
    throw new IllegalStateException("no node " + id);
  }

  /** The lease holding {@code jobs}, read linearizably; empty when nobody holds it. */
  private static Optional<Long> holderLease(RegentClient c) {
    return c.elections().leader("jobs").map(LeaderKey::getLease);
  }

  private static long lockedLines(ChildProcess p) {
    return p.lines().stream().filter(l -> l.startsWith("locked ")).count();
  }

  /** {@code regent_candidates_waiting} on node {@code i}'s /metrics (its LMDB state, cached for a second). */
  private int candidatesWaiting(int i) throws Exception {
    String url = Files.readAllLines(paused.dir().resolve("cluster").resolve("metrics")).get(i);
    String body = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    return body.lines().filter(l -> l.startsWith("regent_candidates_waiting"))
        .mapToInt(l -> (int) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).findFirst().orElse(-1);
  }

}
