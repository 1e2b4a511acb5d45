package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.regent.api.v1.ClusterGrpc;
import io.regent.api.v1.ElectionGrpc;
import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.LeaderRequest;
import io.regent.api.v1.StatusRequest;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;
import org.awaitility.core.ConditionTimeoutException;

/** What a node that was killed or stopped holds once it is back: read from its own replica (serializable). */
final class ReplicaCheck {
  private ReplicaCheck() {
  }

  /**
   * Waits up to 60 s for the node at {@code apiPort} to apply {@code commitIndex}, then asserts its own state
   * names every acknowledged holder in {@code acked} with the same lease and token.
   *
   * @param diagnosis printed when the node does not catch up (e.g. its thread dump)
   */
  static void holdsEveryAcknowledged(int apiPort, long commitIndex, Map<String, LeaderKey> acked,
                                     Supplier<String> diagnosis) {
    ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", apiPort).usePlaintext().build();
    try {
      ClusterGrpc.ClusterBlockingStub cluster = ClusterGrpc.newBlockingStub(channel);
      ElectionGrpc.ElectionBlockingStub election = ElectionGrpc.newBlockingStub(channel);
      try {
        await("the node caught up").atMost(Duration.ofSeconds(60)).ignoreExceptions()
            .until(() -> cluster.status(StatusRequest.newBuilder().setSerializable(true).build()).getAppliedIndex()
                >= commitIndex);
      } catch (ConditionTimeoutException e) {
        System.out.println("the node did not catch up with commit index " + commitIndex + ": " + diagnosis.get());
        throw e;
      }
      for (Map.Entry<String, LeaderKey> a : acked.entrySet()) {
        LeaderKey local = election.leader(LeaderRequest.newBuilder().setName(a.getKey()).setSerializable(true)
            .build()).getLeader();
        assertThat(local).as(a.getKey()).isEqualTo(a.getValue());
      }
    } finally {
      channel.shutdownNow();
    }
  }
}
