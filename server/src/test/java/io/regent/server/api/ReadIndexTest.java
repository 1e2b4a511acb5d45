package io.regent.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.LeaderResponse;
import io.regent.api.v1.LeaseGrpc;
import io.regent.api.v1.LeaseLeasesRequest;
import io.regent.api.v1.LeaseLeasesResponse;
import io.regent.client.RegentClient;
import io.regent.server.cluster.ClusterFixture;
import io.regent.server.cluster.LocalCluster;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Reads answer with the log index they reflect, so that a serializable one can tell how stale it may be. */
@Tag("cluster")
class ReadIndexTest {
  @RegisterExtension
  static final ClusterFixture CLUSTERS = ClusterFixture.perClass();

  @Test
  void leaderAndLeasesCarryTheAppliedIndexTheyWereReadAt() throws Exception {
    LocalCluster cluster = CLUSTERS.start(1);
    cluster.awaitLeader();
    RegentClient client = cluster.client();
    long lease = client.leases().grant(600_000);
    LeaderKey held = client.elections().campaign("jobs", lease, ByteString.copyFromUtf8("a"));
    ManagedChannel channel = ManagedChannelBuilder.forTarget(cluster.endpoint(0)).usePlaintext().build();
    try {
      for (boolean serializable : new boolean[] {true, false}) {
        LeaderResponse leader = client.elections().leader("jobs", serializable).orElseThrow();
        LeaseLeasesResponse leases = LeaseGrpc.newBlockingStub(channel)
            .leases(LeaseLeasesRequest.newBuilder().setSerializable(serializable).build());
        long applied = client.cluster().status(true).getAppliedIndex();
        // before: the field did not exist (0): a state that holds the name has applied its grant
        assertThat(leader.getAppliedIndex()).isBetween(held.getToken(), applied);
        assertThat(leases.getAppliedIndex()).isBetween(held.getToken(), applied);
      }
    } finally {
      channel.shutdownNow();
    }
  }
}
