package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.api.v1.LeaderKey;
import io.regent.client.RegentClient;
import io.regent.server.config.ConfirmRule;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Raft leader cut off from its peers while clients still reach it: it must neither renew leases nor
 * serve stale ownership (docs/architecture.md §3.3, §4.1, §8). Ratis 3.3.0's own ReadIndex would answer from a stale
 * confirmation while the commit index does not move; Regent's Confirm entries must not.
 */
@Tag("cluster")
class PartitionClusterTest {
  @RegisterExtension
  final ClusterFixture clusters = ClusterFixture.perTest();
  LocalCluster cluster;

  @BeforeEach
  void start() throws Exception {
    cluster = clusters.start(3, c -> c.requestTimeoutMs(4_000).confirm(ConfirmRule.LEASE));
  }

  @Test
  void aKeepaliveSentToAnIsolatedOldLeaderIsAcknowledgedOnlyBeforeItsLeasesSafeEnd() {
    int old = cluster.awaitLeaseLeader();
    RegentClient viaOld = cluster.clientOf(old);
    long lease = viaOld.leases().grant(3_000);

    // Under its leadership lease the old leader may still acknowledge, until 0.8 x the other voters' minimum
    // election timeout after its last committed round began; never after (LeaseControlTest: a lease of 1.0
    // fails this check).
    LeaseWindow.Seen seen = LeaseWindow.acrossTheCut(cluster, old, () -> viaOld.leases().keepAlive(lease, 8_000));
    assertThat(seen.refusal()).as("refused in the end; %s", seen.describe()).isNotNull();
    assertThat(seen.refusal().getStatus().getCode()).isIn(Status.Code.UNAVAILABLE, Status.Code.DEADLINE_EXCEEDED);
    assertThat(seen.lateSends()).as("acknowledged although sent after the safe end; %s", seen.describe()).isEmpty();
    assertThat(seen.afterCut()).as("answered under the lease after the cut; %s", seen.describe()).isPositive();
    assertThatThrownBy(() -> viaOld.leases().keepAlive(lease, 8_000))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode())
            .isIn(Status.Code.UNAVAILABLE, Status.Code.DEADLINE_EXCEEDED));
  }

  @Test
  void aReadThroughAnIsolatedOldLeaderNeverReturnsStaleOwnership() {
    int old = cluster.awaitLeaseLeader();
    RegentClient all = cluster.client();
    long a = all.leases().grant(60_000);
    LeaderKey first = all.elections().campaign("jobs", a, ByteString.copyFromUtf8("a"));
    RegentClient viaOld = cluster.clientOf(old);
    assertThat(viaOld.elections().leader("jobs")).contains(first);

    // Within its lease window the old leader answers from its own state (nobody else can have committed);
    // it refuses every read sent after the window's safe end.
    LeaseWindow.Seen seen = LeaseWindow.acrossTheCut(cluster, old,
        () -> assertThat(viaOld.elections().leader("jobs")).contains(first));
    assertThat(seen.refusal()).as("refused in the end; %s", seen.describe()).isNotNull();
    assertThat(seen.lateSends()).as("answered although sent after the safe end; %s", seen.describe()).isEmpty();
    assertThat(seen.afterCut()).as("answered under the lease after the cut; %s", seen.describe()).isPositive();

    int other = (old + 1) % 3;
    RegentClient majority = cluster.clientOf(other);
    await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
      majority.leases().revoke(a);
      return true;
    });
    long b = majority.leases().grant(60_000);
    LeaderKey second = majority.elections().campaign("jobs", b, ByteString.copyFromUtf8("b"));
    assertThat(second.getToken()).isGreaterThan(first.getToken());

    // The old leader's replica still says "a" holds the name; a linearizable read must not return it: its
    // leadership lease lapsed before the majority could elect another leader.
    assertThatThrownBy(() -> viaOld.elections().leader("jobs"))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode())
            .isIn(Status.Code.UNAVAILABLE, Status.Code.DEADLINE_EXCEEDED));

    cluster.heal();
    await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
        .until(() -> viaOld.elections().leader("jobs").orElseThrow().equals(second));
  }

  @Test
  void aLeaseKeptAliveThroughTheMajorityOutlivesAnIsolatedLeadersClock() throws Exception {
    int old = cluster.awaitLeaseLeader();
    int other = (old + 1) % 3;
    RegentClient majority = cluster.clientOf(other);
    long lease = majority.leases().grant(2_000);
    LeaderKey key = majority.elections().campaign("jobs", lease, ByteString.copyFromUtf8("a"));

    cluster.isolate(old);
    // Renew through the majority for three TTLs: the isolated leader's deadline for this lease passes.
    long until = System.nanoTime() + Duration.ofMillis(6_000).toNanos();
    while (System.nanoTime() < until) {
      await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> majority.leases().keepAlive(lease,
          1_000) > 0);
    }
    cluster.heal();
    await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> majority.leases().keepAlive(lease,
        1_000) > 0);
    assertThat(majority.elections().leader("jobs")).contains(key);
  }
}
