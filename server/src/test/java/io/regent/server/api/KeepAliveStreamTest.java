package io.regent.server.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.LeaseGrpc;
import io.regent.api.v1.LeaseKeepAliveRequest;
import io.regent.api.v1.LeaseKeepAliveResponse;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link KeepAliveStream} over a real gRPC transport on loopback, with the renewals it asks for held by the
 * test: verdicts travel per request without ending the stream, answers carry their request's tag in the order
 * they are ready, the stream reads only {@link KeepAliveStream#READ_AHEAD} requests ahead of its answers, a
 * change of leader ends it with UNAVAILABLE, and a half-close completes it once every answer is sent.
 */
class KeepAliveStreamTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  /** The renewals asked for, by lease id, in order; completed by the test. */
  private final Map<Long, CompletableFuture<LeaseKeepAliveResponse>> asked = new ConcurrentHashMap<>();
  private final List<Long> order = new CopyOnWriteArrayList<>();
  private final AtomicReference<NamedLeader> leader = new AtomicReference<>(new NamedLeader("n1", 3, "127.0.0.1:1"));
  private Server server;
  private ManagedChannel channel;
  private final List<LeaseKeepAliveResponse> answers = new CopyOnWriteArrayList<>();
  private final CompletableFuture<Status> ended = new CompletableFuture<>();

  @BeforeEach
  void setUp() throws Exception {
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(new LeaseGrpc.LeaseImplBase() {
          @Override
          public StreamObserver<LeaseKeepAliveRequest> keepAliveStream(StreamObserver<LeaseKeepAliveResponse> obs) {
            return new KeepAliveStream(obs, id -> {
              order.add(id);
              return asked.computeIfAbsent(id, x -> new CompletableFuture<>());
            }, leader::get);
          }
        }).build().start();
    channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
  }

  @AfterEach
  void tearDown() {
    channel.shutdownNow();
    server.shutdownNow();
  }

  private StreamObserver<LeaseKeepAliveRequest> open() {
    return LeaseGrpc.newStub(channel).keepAliveStream(new StreamObserver<>() {
      @Override
      public void onNext(LeaseKeepAliveResponse r) {
        answers.add(r);
      }

      @Override
      public void onError(Throwable t) {
        ended.complete(Status.fromThrowable(t));
      }

      @Override
      public void onCompleted() {
        ended.complete(Status.OK);
      }
    });
  }

  private static LeaseKeepAliveRequest req(long id, long tag) {
    return LeaseKeepAliveRequest.newBuilder().setId(id).setTag(tag).build();
  }

  @Test
  void eachRequestGetsItsOwnVerdictWithItsTagInTheOrderTheyAreReady() {
    StreamObserver<LeaseKeepAliveRequest> requests = open();
    requests.onNext(req(7, 100));
    requests.onNext(req(8, 101));
    await().atMost(WAIT).until(() -> order.size() == 2);
    asked.get(8L).completeExceptionally(Status.NOT_FOUND.withDescription("lease 8 not found").asRuntimeException());
    asked.get(7L).complete(LeaseKeepAliveResponse.newBuilder().setId(7).setTtlMs(5_000).build());
    await().atMost(WAIT).until(() -> answers.size() == 2);

    assertThat(answers.get(0).getTag()).isEqualTo(101);
    assertThat(answers.get(0).getCode()).isEqualTo(Status.Code.NOT_FOUND.value());
    assertThat(answers.get(0).getMessage()).isEqualTo("lease 8 not found");
    assertThat(answers.get(0).getTtlMs()).isZero();
    assertThat(answers.get(1).getTag()).isEqualTo(100);
    assertThat(answers.get(1).getCode()).isZero();
    assertThat(answers.get(1).getTtlMs()).isEqualTo(5_000);
    assertThat(ended).isNotDone(); // one lease's NOT_FOUND leaves the stream to the others

    requests.onCompleted();
    assertThat(ended.orTimeout(WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS).join()).isEqualTo(Status.OK);
  }

  @Test
  void aHalfClosedStreamCompletesOnlyAfterItsLastAnswer() {
    StreamObserver<LeaseKeepAliveRequest> requests = open();
    requests.onNext(req(7, 1));
    requests.onCompleted();
    await().atMost(WAIT).until(() -> order.size() == 1);
    assertThat(ended).isNotDone();

    asked.get(7L).complete(LeaseKeepAliveResponse.newBuilder().setId(7).setTtlMs(5_000).build());
    assertThat(ended.orTimeout(WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS).join()).isEqualTo(Status.OK);
    assertThat(answers).extracting(LeaseKeepAliveResponse::getTag).containsExactly(1L);
  }

  @Test
  void readsOnlyItsWindowAheadOfItsAnswers() {
    StreamObserver<LeaseKeepAliveRequest> requests = open();
    int sent = KeepAliveStream.READ_AHEAD + 500;
    for (long id = 1; id <= sent; id++) {
      requests.onNext(req(id, id));
    }
    await().atMost(WAIT).until(() -> order.size() == KeepAliveStream.READ_AHEAD);

    asked.get(1L).complete(LeaseKeepAliveResponse.newBuilder().setId(1).setTtlMs(5_000).build());
    await().atMost(WAIT).until(() -> order.size() == KeepAliveStream.READ_AHEAD + 1);
    assertThat(order).hasSize(KeepAliveStream.READ_AHEAD + 1); // one answer sent, one more request read
    requests.onCompleted();
  }

  @Test
  void aChangeOfLeaderEndsTheStreamAtItsNextRequest() {
    StreamObserver<LeaseKeepAliveRequest> requests = open();
    requests.onNext(req(7, 1));
    await().atMost(WAIT).until(() -> order.size() == 1);
    leader.set(new NamedLeader("n2", 4, "127.0.0.1:2"));
    requests.onNext(req(7, 2));

    Status s = ended.orTimeout(WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS).join();
    assertThat(s.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(s.getDescription()).startsWith("the Raft leader changed since this stream opened"); // the client matches it
    assertThat(order).hasSize(1); // the request after the change was not renewed here
  }

  /**
   * A stream opened before the leader published its API address told the client no leader to route to; the
   * address appearing later, in the same term, must end it too, or the client never learns where to go.
   */
  @Test
  void theLeadersAddressAppearingEndsAStreamOpenedWithoutIt() {
    leader.set(new NamedLeader("n1", 3, null));
    StreamObserver<LeaseKeepAliveRequest> requests = open();
    requests.onNext(req(7, 1));
    await().atMost(WAIT).until(() -> order.size() == 1);
    leader.set(new NamedLeader("n1", 3, "127.0.0.1:1"));
    requests.onNext(req(7, 2));

    Status s = ended.orTimeout(WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS).join();
    assertThat(s.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(order).hasSize(1);
  }
}
