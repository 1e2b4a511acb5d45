package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.regent.api.v1.LeaseInfo;
import io.regent.client.RegentClient;
import io.regent.server.ratis.RaftSetup;
import java.time.Duration;
import java.util.List;
import org.apache.ratis.server.RaftServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A follower that was down while the leader purged its log catches up through a snapshot install. */
@Tag("cluster")
class SnapshotInstallTest {
  @RegisterExtension
  final ClusterFixture clusters = ClusterFixture.perTest();
  LocalCluster cluster;

  @Test
  void aFollowerBehindThePurgedLogIsCaughtUpBySnapshot() throws Exception {
    cluster = clusters.start(3, c -> c.snapshots(20, 8 * 1024));
    int leader = cluster.awaitLeader();
    int follower = (leader + 1) % 3;
    RegentClient client = cluster.clientOf(leader);
    long early = client.leases().grant(600_000);
    cluster.stopNode(follower);

    ByteString value = ByteString.copyFrom(new byte[512]);
    for (int i = 0; i < 60; i++) {
      long lease = client.leases().grant(600_000);
      client.elections().campaign("name-" + i, lease, value);
    }
    long followerApplied = early;
    RaftServer.Division division = cluster.node(leader).raft().getDivision(RaftSetup.GROUP_ID);
    await().atMost(Duration.ofSeconds(30))
        .until(() -> division.getRaftLog().getStartIndex() > followerApplied + 1);

    cluster.startNode(follower);
    RegentClient viaFollower = cluster.clientOf(follower);
    List<LeaseInfo> expected = client.leases().list();
    await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
        .until(() -> viaFollower.leases().list().equals(expected));
    assertThat(viaFollower.elections().leader("name-59")).isEqualTo(client.elections().leader("name-59"));
    long next = client.leases().grant(600_000);
    assertThat(viaFollower.elections().campaign("after", next, ByteString.EMPTY).getToken())
        .isGreaterThan(client.elections().leader("name-59").orElseThrow().getToken());
  }
}
