package io.regent.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.common.util.concurrent.ListenableFuture;
import io.grpc.Deadline;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.LeaseGrpc;
import io.regent.api.v1.LeaseKeepAliveRequest;
import io.regent.api.v1.LeaseKeepAliveResponse;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link KeepAliveStreams} against a fake node on loopback whose stream answers as the test says: an answer
 * goes to the request whose tag it carries (never to another request of the same lease), a keepalive not
 * answered by its deadline fails with DEADLINE_EXCEEDED, a failed stream fails its waiting keepalives and the
 * next one opens a new stream, and a node without the stream gets unary keepalives.
 */
class KeepAliveStreamsTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  private final KeepAliveStreams streams = new KeepAliveStreams(timer);
  /** The requests the fake node's streams received, and the stream each came on. */
  private final List<LeaseKeepAliveRequest> received = new CopyOnWriteArrayList<>();
  private final List<StreamObserver<LeaseKeepAliveResponse>> opened = new CopyOnWriteArrayList<>();
  private final AtomicInteger unaryCalls = new AtomicInteger();
  private Server server;
  private ManagedChannel channel;

  @AfterEach
  void tearDown() {
    channel.shutdownNow();
    server.shutdownNow();
    timer.shutdownNow();
  }

  private void start(boolean servesStream) throws Exception {
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(new LeaseGrpc.LeaseImplBase() {
          @Override
          public void keepAlive(LeaseKeepAliveRequest req, StreamObserver<LeaseKeepAliveResponse> obs) {
            unaryCalls.incrementAndGet();
            obs.onNext(LeaseKeepAliveResponse.newBuilder().setId(req.getId()).setTtlMs(3_000).build());
            obs.onCompleted();
          }

          @Override
          public StreamObserver<LeaseKeepAliveRequest> keepAliveStream(StreamObserver<LeaseKeepAliveResponse> obs) {
            if (!servesStream) {
              return super.keepAliveStream(obs); // UNIMPLEMENTED, as a node of an older version
            }
            opened.add(obs);
            return new StreamObserver<>() {
              @Override
              public void onNext(LeaseKeepAliveRequest r) {
                received.add(r);
              }

              @Override
              public void onError(Throwable t) {
              }

              @Override
              public void onCompleted() {
              }
            };
          }
        }).build().start();
    channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
  }

  private static Deadline in(Duration d) {
    return Deadline.after(d.toMillis(), TimeUnit.MILLISECONDS);
  }

  private static StatusRuntimeException failure(ListenableFuture<?> f) {
    try {
      f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      throw new AssertionError("succeeded");
    } catch (ExecutionException e) {
      return (StatusRuntimeException) e.getCause();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void anAnswerGoesToTheRequestWithItsTagNotToAnotherOfTheSameLease() throws Exception {
    start(true);
    ListenableFuture<LeaseKeepAliveResponse> first = streams.keepAlive(channel, 7, in(WAIT));
    ListenableFuture<LeaseKeepAliveResponse> second = streams.keepAlive(channel, 7, in(WAIT));
    await().atMost(WAIT).until(() -> received.size() == 2);
    assertThat(opened).hasSize(1); // both on one stream
    long firstTag = received.get(0).getTag();
    long secondTag = received.get(1).getTag();
    assertThat(firstTag).isNotEqualTo(secondTag);

    // The later request is answered first: it must not settle the earlier one, which was sent before it.
    opened.get(0).onNext(LeaseKeepAliveResponse.newBuilder().setId(7).setTtlMs(3_000).setTag(secondTag).build());
    assertThat(second.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).getTtlMs()).isEqualTo(3_000);
    assertThat(first).isNotDone();

    opened.get(0).onNext(LeaseKeepAliveResponse.newBuilder().setId(7).setTag(firstTag)
        .setCode(Status.Code.NOT_FOUND.value()).setMessage("lease 7 not found or expired").build());
    StatusRuntimeException e = failure(first);
    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(e.getStatus().getDescription()).isEqualTo("lease 7 not found or expired");
  }

  @Test
  void aKeepaliveNotAnsweredByItsDeadlineFailsWithDeadlineExceeded() throws Exception {
    start(true);
    ListenableFuture<LeaseKeepAliveResponse> f = streams.keepAlive(channel, 7, in(Duration.ofMillis(200)));
    assertThat(failure(f).getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);

    // A late answer is dropped, and the stream goes on serving the next keepalive.
    await().atMost(WAIT).until(() -> received.size() == 1);
    opened.get(0).onNext(LeaseKeepAliveResponse.newBuilder().setId(7).setTtlMs(3_000)
        .setTag(received.get(0).getTag()).build());
    ListenableFuture<LeaseKeepAliveResponse> next = streams.keepAlive(channel, 7, in(WAIT));
    await().atMost(WAIT).until(() -> received.size() == 2);
    opened.get(0).onNext(LeaseKeepAliveResponse.newBuilder().setId(7).setTtlMs(4_000)
        .setTag(received.get(1).getTag()).build());
    assertThat(next.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).getTtlMs()).isEqualTo(4_000);
    assertThat(opened).hasSize(1);
  }

  @Test
  void aFailedStreamFailsItsWaitingKeepalivesAndTheNextOneOpensANewStream() throws Exception {
    start(true);
    ListenableFuture<LeaseKeepAliveResponse> f = streams.keepAlive(channel, 7, in(WAIT));
    await().atMost(WAIT).until(() -> received.size() == 1);
    opened.get(0).onError(Status.UNAVAILABLE.withDescription("the Raft leader changed").asRuntimeException());
    assertThat(failure(f).getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);

    ListenableFuture<LeaseKeepAliveResponse> next = streams.keepAlive(channel, 7, in(WAIT));
    await().atMost(WAIT).until(() -> opened.size() == 2 && received.size() == 2);
    opened.get(1).onNext(LeaseKeepAliveResponse.newBuilder().setId(7).setTtlMs(3_000)
        .setTag(received.get(1).getTag()).build());
    assertThat(next.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).getTtlMs()).isEqualTo(3_000);
  }

  @Test
  void aStreamTheNodeEndsForALeaderChangeResendsItsUnansweredKeepalivesOnANewStream() throws Exception {
    start(true);
    ListenableFuture<LeaseKeepAliveResponse> f = streams.keepAlive(channel, 7, in(WAIT));
    await().atMost(WAIT).until(() -> received.size() == 1);
    opened.get(0).onError(Status.UNAVAILABLE.withDescription(KeepAliveStreams.LEADER_CHANGED
        + " (it named NamedLeader[leaderId=n0, term=1, api=null]); open a new one").asRuntimeException());

    await().atMost(WAIT).until(() -> opened.size() == 2 && received.size() == 2);
    assertThat(received.get(1).getId()).isEqualTo(7);
    assertThat(f).isNotDone();
    opened.get(1).onNext(LeaseKeepAliveResponse.newBuilder().setId(7).setTtlMs(3_000)
        .setTag(received.get(1).getTag()).build());
    assertThat(f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).getTtlMs()).isEqualTo(3_000);
  }

  @Test
  void aNodeWithoutTheStreamGetsUnaryKeepalives() throws Exception {
    start(false);
    assertThat(streams.keepAlive(channel, 7, in(WAIT)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS).getTtlMs())
        .isEqualTo(3_000);
    assertThat(streams.keepAlive(channel, 8, in(WAIT)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS).getId())
        .isEqualTo(8);
    assertThat(unaryCalls).hasValue(2);
  }

  @Test
  void anUnreachableNodeFailsTheKeepaliveWithUnavailable() throws Exception {
    start(true);
    server.shutdownNow().awaitTermination();
    assertThatThrownBy(() -> streams.keepAlive(channel, 7, in(WAIT)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .hasCauseInstanceOf(StatusRuntimeException.class)
        .cause().extracting(c -> ((StatusRuntimeException) c).getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
  }
}
