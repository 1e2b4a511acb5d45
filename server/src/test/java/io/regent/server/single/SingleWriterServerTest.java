package io.regent.server.single;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.LeaseGrpc;
import io.regent.api.v1.LeaseKeepAliveRequest;
import io.regent.api.v1.LeaseKeepAliveResponse;
import io.regent.client.RegentClient;
import io.regent.server.api.FirstReply;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The single-writer baseline: same API and token rules, one process, no Raft. */
class SingleWriterServerTest {
  @TempDir
  Path dir;

  @Test
  void tokensAreLogIndexesAndKeepGrowingAcrossRestarts() throws Exception {
    long before;
    try (SingleWriterServer s = SingleWriterServer.start("127.0.0.1", 0, dir);
         RegentClient c = RegentClient.connect("127.0.0.1:" + s.apiPort())) {
      LeaderKey a = c.elections().campaign("jobs", c.leases().grant(60_000), ByteString.copyFromUtf8("a"));
      c.elections().resign(a);
      LeaderKey b = c.elections().campaign("jobs", c.leases().grant(60_000), ByteString.copyFromUtf8("b"));
      assertThat(b.getToken()).isGreaterThan(a.getToken());
      assertThat(c.cluster().status().getLeader()).isEqualTo(SingleWriterServer.NODE_ID);
      before = b.getToken();
    }
    try (SingleWriterServer s = SingleWriterServer.start("127.0.0.1", 0, dir);
         RegentClient c = RegentClient.connect("127.0.0.1:" + s.apiPort())) {
      assertThat(c.elections().leader("jobs")).hasValueSatisfying(k -> assertThat(k.getToken()).isEqualTo(before));
      LeaderKey fresh = c.elections().campaign("other", c.leases().grant(60_000), ByteString.EMPTY);
      assertThat(fresh.getToken()).isGreaterThan(before);
    }
  }

  @Test
  void anUnrenewedLeaseExpiresAndItsKeepaliveAnswersNotFound() throws Exception {
    try (SingleWriterServer s = SingleWriterServer.start("127.0.0.1", 0, dir);
         RegentClient c = RegentClient.connect("127.0.0.1:" + s.apiPort())) {
      long lease = c.leases().grant(2_000);
      assertThat(c.leases().keepAlive(lease, 5_000)).isEqualTo(2_000);
      await().atMost(Duration.ofSeconds(10)).until(() -> c.leases().list().isEmpty());
      assertThatThrownBy(() -> c.leases().keepAlive(lease, 5_000)).isInstanceOfSatisfying(StatusRuntimeException.class,
          e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
    }
  }

  /**
   * A renewed keepalive, unary and streamed, carries the node's monotonic clock as it answered (docs/api.md,
   * "Keepalives"): in one JVM that clock is the test's, so the reading lies between the send and the receipt.
   */
  @Test
  void aRenewedKeepaliveCarriesTheNodesMonotonicClockReadBetweenSendAndReceipt() throws Exception {
    try (SingleWriterServer s = SingleWriterServer.start("127.0.0.1", 0, dir);
         RegentClient c = RegentClient.connect("127.0.0.1:" + s.apiPort())) {
      long lease = c.leases().grant(60_000);
      ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", s.apiPort()).usePlaintext().build();
      try {
        LeaseKeepAliveRequest req = LeaseKeepAliveRequest.newBuilder().setId(lease).build();
        long sent = TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
        LeaseKeepAliveResponse unary = LeaseGrpc.newBlockingStub(ch).withDeadlineAfter(5, TimeUnit.SECONDS)
            .keepAlive(req);
        long received = TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
        assertThat(unary.getNodeClockMs()).isBetween(sent, received);
        assertThat(unary.getNodeStartedMs()).isPositive();

        FirstReply<LeaseKeepAliveResponse> answer = new FirstReply<>();
        sent = TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
        StreamObserver<LeaseKeepAliveRequest> stream = LeaseGrpc.newStub(ch).keepAliveStream(answer);
        stream.onNext(req);
        LeaseKeepAliveResponse streamed = answer.future().get(5, TimeUnit.SECONDS);
        received = TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
        stream.onCompleted();
        assertThat(streamed.getTtlMs()).isEqualTo(60_000);
        assertThat(streamed.getNodeClockMs()).isBetween(sent, received);
        assertThat(streamed.getNodeStartedMs()).isEqualTo(unary.getNodeStartedMs());
      } finally {
        ch.shutdownNow();
      }
    }
  }
}
