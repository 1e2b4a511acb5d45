package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.LeaseInfo;
import io.regent.client.LeaseKeeper;
import io.regent.client.RegentClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client whose node hangs (frozen: its API and Raft links accept connections but pass no byte, as under
 * SIGSTOP) moves to the other nodes: a held name survives, a timed-out grant is re-sent with its request id.
 */
@Tag("cluster")
class ClientFailoverTest {
  private static final long TTL_MS = 2_000;

  @TempDir
  Path dir;
  LocalCluster cluster;
  TcpProxy frozenApi;
  int x;

  @BeforeEach
  void start() throws Exception {
    cluster = LocalCluster.start(3, dir);
    int leader = cluster.awaitLeader();
    x = (leader + 1) % 3; // a follower: the two others keep a quorum and the leader while it hangs
    frozenApi = new TcpProxy(port(cluster.endpoint(x)));
  }

  @AfterEach
  void stop() throws Exception {
    frozenApi.close();
    cluster.close();
  }

  private static int port(String endpoint) {
    return Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
  }

  /**
   * A client that starts at node x (through its freezable proxy), then knows the two others. It does not route to
   * the leader (which would take its calls away from x at once): this is the failover from a node that hangs.
   */
  private RegentClient clientThroughX() {
    RegentClient c = RegentClient.builder().endpoints(List.of("127.0.0.1:" + frozenApi.port(),
        cluster.endpoint((x + 1) % 3), cluster.endpoint((x + 2) % 3))).preferLeader(false).build();
    warmUp(c);
    return c;
  }

  /**
   * One proposal through the client's first node: the first one a follower forwards can take over a second
   * (its connections to the leader open then), which would age a 2 s lease past its validity at birth.
   */
  static void warmUp(RegentClient c) {
    c.leases().revoke(c.leases().grant(TTL_MS));
  }

  private void freezeX(boolean frozen) {
    frozenApi.setFrozen(frozen);
    if (frozen) {
      cluster.freeze(x);
    } else {
      cluster.thaw(x);
    }
  }

  @Test
  void aHolderWhoseNodeHangsForTwiceTheTtlKeepsTheNameThroughAnotherNode() {
    try (RegentClient client = clientThroughX()) {
      List<String> stepDowns = new CopyOnWriteArrayList<>();
      LeaseKeeper keeper = LeaseKeeper.grant(client, TTL_MS, stepDowns::add);
      LeaderKey key = client.elections().campaign("failover", keeper.leaseId(), ByteString.copyFromUtf8("a"));
      freezeX(true);
      // Before failover on DEADLINE_EXCEEDED, every keepalive went to the hung node and timed out: the holder
      // stepped down 2/3 TTL after its last acknowledged keepalive.
      await().during(Duration.ofMillis(2 * TTL_MS)).atMost(Duration.ofMillis(2 * TTL_MS + 2_000))
          .until(keeper::isValid);
      assertThat(stepDowns).isEmpty();
      try (RegentClient other = cluster.clientOf((x + 1) % 3)) {
        assertThat(other.elections().leader("failover")).contains(key);
        assertThat(other.leases().timeToLive(keeper.leaseId()).getRemainingMs()).isPositive();
      }
      freezeX(false);
      keeper.close();
    }
  }

  @Test
  void aGrantThatTimedOutIsResentElsewhereWithItsRequestIdAndGrantsOneLease() {
    try (RegentClient client = RegentClient.builder().endpoints(List.of("127.0.0.1:" + frozenApi.port(),
        cluster.endpoint((x + 1) % 3))).callTimeout(Duration.ofSeconds(3)).attemptTimeout(Duration.ofMillis(500))
        .build();
         RegentClient other = cluster.clientOf((x + 1) % 3)) {
      List<Long> before = other.leases().list().stream().map(LeaseInfo::getId).toList();
      freezeX(true);
      // DEADLINE_EXCEEDED on the hung node, then the same request (same request id) on the next one
      // (docs/api.md "Request ids"); before request ids a timed-out grant was not re-sent at all
      long id = client.leases().grant(60_000); // outlives the checks below unrenewed
      assertThat(other.leases().timeToLive(id).getTtlMs()).isEqualTo(60_000);
      freezeX(false);
      // whatever the resumed node does with its stuck copy, it is answered from the record: one lease, not two
      await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).untilAsserted(() ->
          assertThat(other.leases().list().stream().map(LeaseInfo::getId).filter(l -> !before.contains(l)))
              .containsExactly(id));
    }
  }
}
