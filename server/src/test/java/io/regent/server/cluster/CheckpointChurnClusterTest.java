package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.StatusRuntimeException;
import io.regent.client.RegentClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Leader churn against lease time (docs/architecture.md §3.8): leadership moves every second
 * or so, faster than the TTL. Without checkpoints every new leader re-arms a full TTL and an unrenewed lease
 * lives as long as the churn lasts; with them it expires within its bound, never before its TTL from its last
 * renewal — also when that renewal needed no log entry and a successor holds an older checkpoint — while a
 * lease renewed throughout survives.
 */
@Tag("cluster")
class CheckpointChurnClusterTest {
  static final long IDLE_TTL_MS = 5_000;
  static final long KEPT_TTL_MS = 20_000;
  /** Leader changes the test allows: the bound is TTL + changes x (election time + checkpoint interval). */
  static final int MAX_CHANGES = 20;
  /** How often the leases are looked at between two leader changes, ms. */
  static final long LOOK_MS = 100;

  @TempDir
  Path dir;
  LocalCluster cluster;

  /** When a lease was first seen gone: the time the read that found it gone returned (nanoTime), or 0. */
  static final class Watch {
    final long lease;
    long validFrom;
    long goneSeen;

    Watch(long lease, long validFrom) {
      this.lease = lease;
      this.validFrom = validFrom;
    }

    void look(RegentClient c) {
      if (goneSeen == 0 && !alive(c, lease)) {
        goneSeen = System.nanoTime();
      }
    }

    /** How long after its last renewal's send the lease was seen gone, ms (the TTL at least). */
    long livedMs() {
      return TimeUnit.NANOSECONDS.toMillis(goneSeen - validFrom);
    }
  }

  @AfterEach
  void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void leaderChurnNeitherKeepsAnUnrenewedLeaseAliveNorEndsOneEarly() throws Exception {
    cluster = LocalCluster.start(3, dir);
    cluster.awaitLeader();
    RegentClient c = cluster.client();
    long idleSent = System.nanoTime();
    Watch idle = new Watch(c.leases().grant(IDLE_TTL_MS), idleSent);
    // renewed once, at a leader holding its leadership lease and a checkpoint of this lease written before the
    // renewal: the renewal must not leave its successor to resume from that older checkpoint
    long renewedSent = System.nanoTime();
    Watch renewedOnce = new Watch(c.leases().grant(IDLE_TTL_MS), renewedSent);
    boolean renewed = false;
    long kept = c.leases().grant(KEPT_TTL_MS);
    int changes = 0;
    while ((idle.goneSeen == 0 || renewedOnce.goneSeen == 0) && changes < MAX_CHANGES) {
      if (!renewed && changes == 2) {
        // late in a tenure, just before the next transfer: the state's checkpoint is up to an interval older
        // than this renewal, and the successor starts from the state
        long sent = System.nanoTime();
        c.leases().keepAlive(renewedOnce.lease, 3_000);
        renewedOnce.validFrom = sent;
        renewed = true;
      }
      keepAlive(c, kept);
      int from = cluster.awaitLeader();
      int to = (from + 1) % cluster.size();
      try {
        c.cluster().transferLeadership(LocalCluster.id(to));
      } catch (StatusRuntimeException e) {
        continue; // the target was not caught up: try again
      }
      await().atMost(Duration.ofSeconds(15)).until(() -> cluster.currentLeader() == to);
      changes++;
      keepAlive(c, kept);
      // a tenure of about a second, longer than the checkpoint interval and far shorter than the TTL, the
      // leases looked at all along it
      long tenureEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
      Watch[] watches = {idle, renewedOnce};
      await().pollInterval(Duration.ofMillis(LOOK_MS)).atMost(Duration.ofSeconds(3)).until(() -> {
        for (Watch w : watches) {
          w.look(c);
        }
        return System.nanoTime() - tenureEnd >= 0;
      });
    }
    assertThat(idle.goneSeen).as("unrenewed lease still alive after %d leader changes", changes).isNotZero();
    assertThat(renewedOnce.goneSeen).as("lease renewed once still alive after %d changes", changes).isNotZero();
    assertThat(idle.livedMs()).as("the unrenewed lease never before its TTL").isGreaterThanOrEqualTo(IDLE_TTL_MS);
    assertThat(renewedOnce.livedMs()).as("the lease renewed once never before its TTL from that renewal")
        .isGreaterThanOrEqualTo(IDLE_TTL_MS);
    assertThat(alive(c, kept)).as("the renewed lease survived the churn").isTrue();
  }

  /** Whether the lease is in the state; a read refused during a leader change counts as alive. */
  static boolean alive(RegentClient c, long lease) {
    try {
      return c.leases().list().stream().anyMatch(l -> l.getId() == lease);
    } catch (StatusRuntimeException e) {
      return true;
    }
  }

  static void keepAlive(RegentClient c, long lease) {
    try {
      c.leases().keepAlive(lease, 3_000);
    } catch (StatusRuntimeException e) {
      // a leader change under way: the next round renews it, well inside its TTL
    }
  }
}
