package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.regent.api.v1.LeaseInfo;
import io.regent.client.RegentClient;
import io.regent.server.storage.DataDir;
import io.regent.statemachine.store.UnsyncedMarker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A replica's LMDB takes commits without fsync; after an OS crash (simulated: the marker names another
 * boot and the file is garbage) the node must not use it but rebuild the same state from its snapshot and
 * the Raft log.
 */
@Tag("cluster")
class OsCrashRecoveryTest {
  @RegisterExtension
  final ClusterFixture clusters = ClusterFixture.perTest();
  LocalCluster cluster;

  @Test
  void aReplicaWhoseUnsyncedStateMayBeLostRebuildsItFromSnapshotAndLog() throws Exception {
    cluster = clusters.start(3, c -> c.snapshots(20, 8 * 1024));
    int leader = cluster.awaitLeader();
    int follower = (leader + 1) % 3;
    RegentClient client = cluster.clientOf(leader);
    for (int i = 0; i < 30; i++) {
      client.elections().campaign("name-" + i, client.leases().grant(600_000), ByteString.copyFromUtf8("v" + i));
    }
    List<LeaseInfo> expected = client.leases().list();
    RegentClient viaFollower = cluster.clientOf(follower);
    await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> viaFollower.leases().list().equals(expected));
    cluster.stopNode(follower);

    Path lmdb = new DataDir(clusters.dir().resolve(LocalCluster.id(follower))).lmdb();
    Files.writeString(lmdb.resolve(UnsyncedMarker.FILE), "another-boot");
    Files.write(lmdb.resolve(DataDir.LMDB_FILE), new byte[] {1, 2, 3}); // what a lost page cache may leave

    cluster.startNode(follower);
    RegentClient restarted = cluster.clientOf(follower);
    await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> restarted.leases().list().equals(expected));
    assertThat(restarted.elections().leader("name-29")).isEqualTo(client.elections().leader("name-29"));
    assertThat(restarted.elections().campaign("after", restarted.leases().grant(600_000), ByteString.EMPTY).getToken())
        .isGreaterThan(client.elections().leader("name-29").orElseThrow().getToken());
  }
}
