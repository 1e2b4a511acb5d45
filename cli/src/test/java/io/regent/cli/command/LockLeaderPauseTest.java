package io.regent.cli.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.regent.api.v1.StatusResponse;
import io.regent.cli.cluster.Launcher;
import io.regent.cli.cluster.ProcessCluster;
import io.regent.cli.holder.ExecChildTest;
import io.regent.client.RegentClient;
import io.regent.process.ChildProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A lock at a short TTL (1.8 s; the minimum is 1.35 s with the default timeouts) rides out a frozen Raft leader
 * (docs/architecture.md §3.6): a 3-node cluster, {@code regent lock f1 --ttl 1.8s -- sleep 1000} talking to a
 * follower, and the leader node stopped with
 * SIGSTOP for three TTLs. The failover takes longer than 2/3 of the TTL, so the holder may be suspended, but
 * the new leader keeps the lease: the holder resumes, its command lives on, and nothing is lost.
 */
@Timeout(120)
@Tag("cluster")
class LockLeaderPauseTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  /** A TTL near the minimum (1.35 s with the default election timeouts), shorter than a failover under load. */
  private static final Duration TTL = Duration.ofMillis(1_800);

  private ProcessCluster cluster;
  private ChildProcess lock;
  private PausableCluster paused;

  @BeforeEach
  void startCluster() throws Exception {
    paused = PausableCluster.start("regent-lock-pause-");
    cluster = paused.cluster();
  }

  @AfterEach
  void stopAll() throws Exception {
    try {
      if (lock != null) {
        lock.close();
      }
    } finally {
      paused.close();
    }
  }

  @Test
  void aLockAtTheMinimumTtlKeepsItsCommandThroughALeaderPause() throws Exception {
    ProcessCluster.Node leader;
    try (RegentClient c = RegentClient.connect(cluster.endpoints())) {
      StatusResponse s = await().atMost(WAIT).ignoreExceptions().until(() -> c.cluster().status(),
          r -> !r.getLeader().isEmpty());
      leader = cluster.nodes().stream().filter(n -> n.id().equals(s.getLeader())).findFirst().orElseThrow();
    }
    ProcessCluster.Node follower = cluster.nodes().stream().filter(n -> n != leader).findFirst().orElseThrow();
    List<String> cmd = new ArrayList<>(Launcher.javaCommand(Launcher.CLIENT_JVM));
    cmd.addAll(List.of("lock", "f1", "--ttl", TTL.toMillis() + "ms", "--endpoints", follower.apiAddress(), "--",
        "sleep", "1000"));
    lock = ChildProcess.builder("lock", cmd).captureOutput(l -> System.out.println("[lock] " + l)).start();
    lock.awaitLine(l -> l.startsWith("locked f1 "), WAIT);
    ProcessHandle sleep = await().atMost(WAIT).until(() -> lock.handle().children().findFirst(),
        Optional::isPresent).orElseThrow();

    paused.pause(leader);
    // the pause itself: for three TTLs the holder must neither be lost nor lose its command
    await().during(TTL.multipliedBy(3)).atMost(TTL.multipliedBy(3).plusSeconds(5))
        .until(() -> lock.alive() && sleep.isAlive() && lost().isEmpty());
    paused.resume();

    // suspended during the failover at most, and resumed by now: the command runs again
    await().atMost(WAIT).until(() -> !lastSuspensionLine().startsWith("suspended ")
        && ExecChildTest.state(sleep) != 'T');
    assertThat(lost()).isEmpty();
    assertThat(lock.alive()).isTrue();
    assertThat(sleep.isAlive()).isTrue();
    assertThat(lock.terminate(WAIT)).as("lock's exit code after SIGTERM").isZero();
  }

  private List<String> lost() {
    return lock.lines().stream().filter(l -> l.startsWith("lost ")).toList();
  }

  /** The last {@code suspended}/{@code resumed} line; empty when there was none. */
  private String lastSuspensionLine() {
    return lock.lines().stream().filter(l -> l.startsWith("suspended ") || l.startsWith("resumed "))
        .reduce((a, b) -> b).orElse("");
  }

}
