package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.LeaseGrantRequest;
import io.regent.api.v1.LeaseGrpc;
import io.regent.client.LeaderMetadata;
import io.regent.client.LeaseKeeper;
import io.regent.client.RegentClient;
import io.regent.server.ratis.RaftSetup;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Leader-aware clients on an in-JVM 3-node cluster (docs/api.md, "Leader-aware routing"): every reply names the
 * Raft leader, a follower's refusal too; keepalive streams follow a leader change; a client given one endpoint
 * learns the others and keeps its lease and name when that node stops. That a client sends its calls to the
 * leader its replies named is the client's rule, tested once, on fake nodes (LeaderRoutingClientTest;
 * docs/testing.md).
 */
@Tag("cluster")
class LeaderRoutingClusterTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final long TTL_MS = 10_000;
  private static final int CALLS = 20;

  @RegisterExtension
  final ClusterFixture clusters = ClusterFixture.perTest();
  final HttpClient http = HttpClient.newHttpClient();

  @Test
  void everyReplyNamesTheLeaderAFollowersRefusalToo() throws Exception {
    LocalCluster cluster = clusters.start(3);
    int leader = cluster.awaitLeader();
    int follower = (leader + 1) % 3;
    String term = Long.toString(cluster.node(leader).raft().getDivision(RaftSetup.GROUP_ID).getInfo()
        .getCurrentTerm());
    String[] hostPort = cluster.endpoint(follower).split(":");
    ManagedChannel ch = NettyChannelBuilder.forAddress(hostPort[0], Integer.parseInt(hostPort[1])).usePlaintext()
        .build();
    try {
      AtomicReference<Metadata> headers = new AtomicReference<>();
      AtomicReference<Metadata> trailers = new AtomicReference<>();
      var lease = LeaseGrpc.newBlockingStub(ch).withInterceptors(
          MetadataUtils.newCaptureMetadataInterceptor(headers, trailers));
      // the leader publishes its API address through Raft shortly after it starts
      await().atMost(WAIT).untilAsserted(() -> {
        lease.grant(LeaseGrantRequest.newBuilder().setTtlMs(TTL_MS).build());
        assertThat(headers.get().get(LeaderMetadata.LEADER)).isEqualTo(cluster.endpoint(leader));
      });
      assertThat(headers.get().get(LeaderMetadata.NODE)).isEqualTo(LocalCluster.id(follower));
      assertThat(headers.get().get(LeaderMetadata.LEADER_ID)).isEqualTo(LocalCluster.id(leader));
      assertThat(headers.get().get(LeaderMetadata.TERM)).isEqualTo(term);

      headers.set(null);
      assertThatThrownBy(() -> lease.grant(LeaseGrantRequest.newBuilder().setTtlMs(1).build()))
          .isInstanceOfSatisfying(StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
      assertThat(headers.get()).as("a refusal has no headers, only trailers").isNull();
      assertThat(trailers.get().get(LeaderMetadata.LEADER)).isEqualTo(cluster.endpoint(leader));
      assertThat(trailers.get().get(LeaderMetadata.LEADER_ID)).isEqualTo(LocalCluster.id(leader));
      assertThat(trailers.get().get(LeaderMetadata.NODE)).isEqualTo(LocalCluster.id(follower));
      assertThat(trailers.get().get(LeaderMetadata.TERM)).isEqualTo(term);
    } finally {
      ch.shutdownNow();
    }
  }

  /**
   * Keepalives travel on a stream, which carries no reply headers of its own after it opens: the stream ends at
   * the first keepalive after its node's leader changed, and its trailers send the client to the new leader.
   * Without that end the renewals would go on through the old leader, now a follower, for good.
   */
  @Test
  void keepalivesOnTheirStreamFollowALeaderChange() throws Exception {
    LocalCluster cluster = clusters.start(3, c -> c.metricsPort(0));
    int leader = cluster.awaitLeader();
    try (RegentClient client = RegentClient.connect(List.of(cluster.endpoint(0), cluster.endpoint(1),
        cluster.endpoint(2)))) {
      long id = client.leases().grant(TTL_MS);
      await().atMost(WAIT).until(() -> {
        client.leases().keepAlive(id, 20_000);
        return client.leaderEndpoint();
      }, Optional.of(cluster.endpoint(leader))::equals);

      int next = (leader + 1) % 3;
      // Through another client: this one must hear of the change from its keepalive stream alone.
      try (RegentClient admin = RegentClient.connect(List.of(cluster.endpoint(leader), cluster.endpoint(next)))) {
        admin.cluster().transferLeadership(LocalCluster.id(next));
      }
      // ready to renew: until then the new leader refuses keepalives (NodeRefusal), which would not be counted
      await().atMost(WAIT).until(() -> cluster.awaitLeaseLeader() == next);
      // and known to the old leader, whose stream the client renews on: a node that has not yet heard from the new
      // leader names none when it ends the stream, and answers the keepalives on the next one through the group (a
      // verify saw all 20 acknowledged by the old leader so, the client routing to no leader throughout)
      String nextId = LocalCluster.id(next);
      await().atMost(WAIT).until(() -> String.valueOf(cluster.node(leader).raft().getDivision(RaftSetup.GROUP_ID)
          .getInfo().getLeaderId()), nextId::equals);
      long[] before = keepAlives(cluster);
      List<String> routedTo = new ArrayList<>(); // the client's leader endpoint after each keepalive
      for (int i = 0; i < CALLS; i++) {
        client.leases().keepAlive(id, 20_000);
        routedTo.add(client.leaderEndpoint().orElse("none"));
      }
      long[] after = minus(keepAlives(cluster), before);
      // what a failure needs to be read: the counts of every node, where the client routed, who leads now
      String seen = String.format("acknowledged by n0..n2 %s, routed to %s, endpoints %s, leader now n%d",
          Arrays.toString(after), routedTo, client.endpoints(), cluster.currentLeader());
      assertThat(client.leaderEndpoint()).as(seen).contains(cluster.endpoint(next));
      assertThat(after[next]).as("keepalives acknowledged by the new leader n%d: %s", next, seen)
          .isGreaterThanOrEqualTo(CALLS - 1); // the first may end the old stream and hedge
      assertThat(after[leader]).as("by the old leader: %s", seen).isLessThanOrEqualTo(1);
    }
  }

  @Test
  void aClientGivenOneEndpointLearnsTheOthersAndSurvivesThatNodeStopping() throws Exception {
    LocalCluster cluster = clusters.start(3);
    int leader = cluster.awaitLeader();
    try (RegentClient client = RegentClient.connect(cluster.endpoint(leader))) {
      // every node publishes its address after it starts; the client reads the list again until all are in
      await().atMost(WAIT).until(() -> {
        client.leases().list();
        return client.endpoints().size() == 3;
      });
      assertThat(client.endpoints()).containsExactlyInAnyOrder(cluster.endpoint(0), cluster.endpoint(1),
          cluster.endpoint(2));
      List<String> stepDowns = new CopyOnWriteArrayList<>();
      try (LeaseKeeper keeper = LeaseKeeper.grant(client, TTL_MS, stepDowns::add)) {
        LeaderKey key = client.elections().campaign("held", keeper.leaseId(), ByteString.copyFromUtf8("a"));
        cluster.stopNode(leader); // the client's only given endpoint, and the Raft leader
        int next = cluster.awaitLeader();
        await().atMost(WAIT).ignoreExceptions().until(() -> client.elections().leader("held"),
            Optional.of(key)::equals);
        assertThat(client.leases().grant(TTL_MS)).isPositive();
        await().atMost(WAIT).ignoreExceptions().until(() -> {
          client.leases().list();
          return client.leaderEndpoint();
        }, Optional.of(cluster.endpoint(next))::equals);
        // a renewal acknowledged after the stop, by the new leader
        long renewedAfter = System.nanoTime();
        await().atMost(WAIT).until(() -> keeper.deadlineNanos() - renewedAfter > TTL_MS * 2 / 3 * 1_000_000L);
        assertThat(keeper.isValid()).isTrue();
        assertThat(stepDowns).isEmpty();
      }
    }
  }

  /** Keepalives each node acknowledged, unary or on a keepalive stream, from its {@code /metrics}. */
  private long[] keepAlives(LocalCluster cluster) throws Exception {
    return sum(cluster, line -> line.startsWith("regent_keepalive_confirm_seconds_count"));
  }

  private long[] sum(LocalCluster cluster, java.util.function.Predicate<String> counted) throws Exception {
    long[] out = new long[cluster.size()];
    for (int i = 0; i < cluster.size(); i++) {
      String body = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cluster.node(i).metricsPort()
          + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
      for (String line : body.split("\n")) {
        if (counted.test(line)) {
          out[i] += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }
      }
    }
    return out;
  }

  private static long[] minus(long[] a, long[] b) {
    long[] out = new long[a.length];
    for (int i = 0; i < a.length; i++) {
      out[i] = a[i] - b[i];
    }
    return out;
  }
}
