package io.regent.etcdcompat;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.etcdcompat.Etcdctl.Run;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code etcdctl} 3.4 asks of a cluster besides keys: {@code member list} (etcd's Cluster.MemberList),
 * {@code endpoint status} (Maintenance.Status) and {@code endpoint health} (a Range and the alarm list), through a
 * follower's etcd port, and with {@code --cluster}, which reaches every member through the client URLs the member
 * list gives (docs/migrating.md "etcd's clients").
 */
@ExtendWith(EtcdCompatCluster.Shared.class)
@Tag("cluster")
class EtcdctlClusterTest {
  @TempDir
  static Path dir;
  static EtcdCompatCluster cluster;
  static String follower;

  @BeforeAll
  static void start(EtcdCompatCluster shared) {
    cluster = shared;
    follower = shared.followerEndpoint();
  }

  private static Run etcdctl(String... args) throws IOException, InterruptedException {
    Run r = Etcdctl.run(dir, follower, null, args);
    assertThat(r.exit()).as(r.out()).isZero();
    return r;
  }

  /** etcd's member id of Regent member {@code id}, as etcdctl prints it (hex). */
  private static String hexId(String id) {
    return Long.toHexString(UUID.nameUUIDFromBytes(id.getBytes(StandardCharsets.UTF_8)).getMostSignificantBits());
  }

  @Test
  void memberListNamesEveryNodeWithItsRaftAndEtcdAddresses() throws Exception {
    List<String> etcd = List.of(cluster.endpoints().split(","));
    List<String> expected = new ArrayList<>();
    int i = 0;
    for (var peer : cluster.peers().entrySet()) {
      expected.add(hexId(peer.getKey()) + ", started, " + peer.getKey() + ", http://" + peer.getValue()
          + ", http://" + etcd.get(i++) + ", false");
    }
    assertThat(etcdctl("member", "list").out().lines()).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void endpointStatusOfAFollowerNamesTheLeaderAndTheLog() throws Exception {
    // endpoint, member id, version, db size, is leader, is learner, raft term, raft index, raft applied index, errors
    String[] f = etcdctl("endpoint", "status").out().split(",\\s*", -1);
    assertThat(f[0]).isEqualTo(follower);
    assertThat(f[2]).isNotEmpty();
    assertThat(f[4]).as("a follower").isEqualTo("false");
    assertThat(f[5]).isEqualTo("false");
    assertThat(Long.parseLong(f[6])).as("term").isPositive();
    assertThat(Long.parseLong(f[7])).as("commit index").isPositive();
    assertThat(Long.parseLong(f[8])).as("applied index").isPositive().isLessThanOrEqualTo(Long.parseLong(f[7]));

    List<String> all = etcdctl("endpoint", "status", "--cluster").out().lines().toList();
    assertThat(all).hasSize(3);
    assertThat(all).filteredOn(l -> l.split(", ")[4].equals("true")).singleElement()
        .satisfies(l -> assertThat(l.split(", ")[1]).isEqualTo(hexId(cluster.leaderId())));
  }

  @Test
  void endpointHealthOfAFollowerAndOfTheWholeClusterIsHealthy() throws Exception {
    assertThat(etcdctl("endpoint", "health").out())
        .startsWith(follower + " is healthy: successfully committed proposal");
    List<String> all = etcdctl("endpoint", "health", "--cluster").out().lines().toList();
    assertThat(all).hasSize(3).allMatch(l -> l.contains(" is healthy: "));
  }
}
