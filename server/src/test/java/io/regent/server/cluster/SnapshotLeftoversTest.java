package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.LeaseInfo;
import io.regent.client.RegentClient;
import io.regent.statemachine.store.DataDirDamagedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The state a {@code kill -9} during snapshot writing leaves, made deterministically in a real node's data
 * directory: the restarted node removes the leftovers, never takes them for its latest snapshot, and rejoins
 * with every holder and token. A damaged latest snapshot stops the node with one line naming the file.
 */
@Tag("cluster")
class SnapshotLeftoversTest {
  @RegisterExtension
  final ClusterFixture clusters = ClusterFixture.perTest();
  LocalCluster cluster;
  RegentClient client;
  final Map<String, LeaderKey> holders = new LinkedHashMap<>();
  int follower;

  @BeforeEach
  void writeStateAndStopAFollower() throws Exception {
    cluster = clusters.start(3, c -> c.snapshots(20, 8 * 1024));
    int leader = cluster.awaitLeader();
    follower = (leader + 1) % 3;
    client = cluster.clientOf(leader);
    for (int i = 0; i < 60; i++) {
      client.elections().campaign("name-" + i, client.leases().grant(600_000), ByteString.copyFrom(new byte[1000]));
      holders.put("name-" + i, client.elections().leader("name-" + i).orElseThrow());
    }
    RegentClient viaFollower = cluster.clientOf(follower);
    await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
        .until(() -> viaFollower.elections().leader("name-59").equals(java.util.Optional.of(holders.get("name-59")))
            && !SnapshotFiles.names(followerDir()).isEmpty());
    cluster.stopNode(follower);
  }

  private Path followerDir() {
    return clusters.dir().resolve(LocalCluster.id(follower));
  }

  @Test
  void leftoversOfAnInterruptedSnapshotAreRemovedAndTheNodeRejoinsWithEveryToken() throws Exception {
    Path sm = SnapshotFiles.dir(followerDir());
    Path latest = SnapshotFiles.latest(followerDir());
    long term = Long.parseLong(latest.getFileName().toString().replaceAll("snapshot\\.(\\d+)_.*", "$1"));
    long index = SnapshotFiles.index(latest.getFileName().toString());
    byte[] real = Files.readAllBytes(latest);
    // killed mid-copy: the temporary LMDB copy, half written
    Path copy = Files.createDirectories(sm.resolve("lmdb-copy4242"));
    Files.write(copy.resolve("data.mdb"), java.util.Arrays.copyOf(real, real.length / 2));
    // killed after the rename, before the .md5: a newer snapshot file, here truncated too
    Path partial = sm.resolve("snapshot." + term + "_" + (index + 1000));
    Files.write(partial, java.util.Arrays.copyOf(real, real.length / 3));
    Files.writeString(sm.resolve(partial.getFileName() + ".md5.tmp"), "0123");
    List<LeaseInfo> leases = client.leases().list();

    cluster.startNode(follower);

    assertThat(copy).doesNotExist();
    assertThat(partial).doesNotExist();
    assertThat(SnapshotFiles.names(followerDir())).noneMatch(n -> n.endsWith(".tmp"));
    RegentClient restarted = cluster.clientOf(follower);
    await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> restarted.leases().list().equals(leases));
    for (Map.Entry<String, LeaderKey> h : holders.entrySet()) {
      assertThat(restarted.elections().leader(h.getKey())).as(h.getKey()).contains(h.getValue());
    }
    long maxToken = holders.values().stream().mapToLong(LeaderKey::getToken).max().orElseThrow();
    assertThat(restarted.elections().campaign("after", restarted.leases().grant(600_000), ByteString.EMPTY).getToken())
        .isGreaterThan(maxToken);
  }

  @Test
  void flippedBytesInTheLatestSnapshotStopTheNodeWithOneLineNamingIt() throws Exception {
    Path latest = SnapshotFiles.latest(followerDir());
    SnapshotFiles.flipByte(latest, Files.size(latest) / 2);

    assertThatThrownBy(() -> cluster.startNode(follower))
        .satisfies(e -> assertThat(damage(e)).isNotNull()
            .extracting(Throwable::getMessage, InstanceOfAssertFactories.STRING)
            .startsWith(latest + ": snapshot does not match its checksum file").doesNotContain("\n")
            .endsWith(DataDirDamagedException.WHAT_TO_DO));
    assertThat(latest).exists();
    assertThat(client.elections().campaign("after", client.leases().grant(600_000),
        ByteString.EMPTY).getToken()).isPositive();
  }

  private static DataDirDamagedException damage(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof DataDirDamagedException d) {
        return d;
      }
    }
    return null;
  }
}
