package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.StatusRuntimeException;
import io.regent.client.RegentClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Leader churn against lease time (docs/architecture.md §3.8): leadership moves every second
 * or so, faster than the TTL. Without checkpoints every new leader re-arms a full TTL and an unrenewed lease
 * lives as long as the churn lasts; with them it expires within its bound, while a renewed lease survives.
 */
class CheckpointChurnClusterTest {
  static final long IDLE_TTL_MS = 5_000;
  static final long KEPT_TTL_MS = 20_000;
  /** Leader changes the test allows: the bound is TTL + changes x (election time + checkpoint interval). */
  static final int MAX_CHANGES = 20;

  @TempDir
  Path dir;
  LocalCluster cluster;

  @AfterEach
  void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void leaderChurnCannotKeepAnUnrenewedLeaseAliveAndLosesNoRenewedOne() throws Exception {
    cluster = LocalCluster.start(3, dir);
    cluster.awaitLeader();
    RegentClient c = cluster.client();
    long granted = System.nanoTime();
    long idle = c.grant(IDLE_TTL_MS);
    long kept = c.grant(KEPT_TTL_MS);
    int changes = 0;
    while (alive(c, idle) && changes < MAX_CHANGES) {
      keepAlive(c, kept);
      int from = cluster.awaitLeader();
      int to = (from + 1) % cluster.size();
      try {
        c.transferLeadership(LocalCluster.id(to));
      } catch (StatusRuntimeException e) {
        continue; // the target was not caught up: try again
      }
      await().atMost(Duration.ofSeconds(15)).until(() -> cluster.currentLeader() == to);
      changes++;
      keepAlive(c, kept);
      // a tenure of about a second, longer than the checkpoint interval and far shorter than the TTL
      await().pollDelay(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2)).until(() -> true);
    }
    long livedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - granted);
    assertThat(alive(c, idle)).as("unrenewed lease still alive after %d leader changes, %d ms", changes, livedMs)
        .isFalse();
    assertThat(livedMs).as("never before its TTL").isGreaterThanOrEqualTo(IDLE_TTL_MS);
    assertThat(alive(c, kept)).as("the renewed lease survived the churn").isTrue();
  }

  /** Whether the lease is in the state; a read refused during a leader change counts as alive. */
  static boolean alive(RegentClient c, long lease) {
    try {
      return c.leases().stream().anyMatch(l -> l.getId() == lease);
    } catch (StatusRuntimeException e) {
      return true;
    }
  }

  static void keepAlive(RegentClient c, long lease) {
    try {
      c.keepAlive(lease, 3_000);
    } catch (StatusRuntimeException e) {
      // a leader change under way: the next round renews it, well inside its TTL
    }
  }
}
