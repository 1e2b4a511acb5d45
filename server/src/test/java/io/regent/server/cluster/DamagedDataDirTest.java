package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.regent.client.RegentClient;
import io.regent.server.storage.DataDir;
import io.regent.statemachine.store.DataDirDamagedException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A node whose data directory was damaged while it was down (a truncated LMDB file, as a full disk or a bad
 * copy leaves it) refuses to start with an error naming the file, instead of starting with lost state; the
 * cluster keeps serving, and the node rejoins once its directory is replaced by an empty one.
 */
@Tag("cluster")
class DamagedDataDirTest {
  @RegisterExtension
  final ClusterFixture clusters = ClusterFixture.perTest();
  LocalCluster cluster;

  @Test
  void aTruncatedLmdbFileStopsTheNodeWithAnErrorNamingItAndTheClusterGoesOn() throws Exception {
    cluster = clusters.start(3);
    int leader = cluster.awaitLeader();
    int victim = (leader + 1) % 3;
    RegentClient client = cluster.clientOf(leader);
    for (int i = 0; i < 200; i++) {
      client.elections().campaign("name-" + i, client.leases().grant(600_000), ByteString.copyFrom(new byte[200]));
    }
    RegentClient viaVictim = cluster.clientOf(victim);
    await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
        .until(() -> viaVictim.elections().leader("name-199").equals(client.elections().leader("name-199")));
    cluster.stopNode(victim);
    Path mdb = new DataDir(clusters.dir().resolve(LocalCluster.id(victim))).lmdbFile();
    try (FileChannel ch = FileChannel.open(mdb, StandardOpenOption.WRITE)) {
      ch.truncate(ch.size() / 2);
    }

    assertThatThrownBy(() -> cluster.startNode(victim))
        .satisfies(e -> assertThat(rootDamage(e)).isNotNull()
            .extracting(Throwable::getMessage, InstanceOfAssertFactories.STRING)
            .contains(mdb.toString()).contains("truncated"));
    assertThat(client.elections().campaign("after", client.leases().grant(600_000),
        ByteString.EMPTY).getToken()).isPositive();
  }

  private static DataDirDamagedException rootDamage(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof DataDirDamagedException d) {
        return d;
      }
    }
    return null;
  }
}
