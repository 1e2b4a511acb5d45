package io.regent.server.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.CampaignResponse;
import io.regent.api.v1.ElectionGrpc;
import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.ObserveRequest;
import io.regent.api.v1.ObserveResponse;
import io.regent.client.RegentClient;
import io.regent.server.cluster.ClusterFixture;
import io.regent.server.cluster.LocalCluster;
import io.regent.server.limits.ServerLimits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every limit of {@link ServerLimits}: exceeding it answers RESOURCE_EXHAUSTED with a message naming it,
 * changes nothing, and another connection is still served.
 */
@Tag("cluster")
class LimitsTest {
  static final ServerLimits LIMITS = new ServerLimits(70_000, 5, 3, 1_000, 4, 2, 60_000, 1_000, 1_000, 1_000,
      1_024);
  @RegisterExtension
  static final ClusterFixture CLUSTERS = ClusterFixture.perClass();
  static LocalCluster cluster;
  final List<RegentClient> clients = new ArrayList<>();
  final List<ManagedChannel> channels = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    cluster = CLUSTERS.start(1, c -> c.limits(LIMITS));
    cluster.awaitLeader();
  }

  @AfterEach
  void cleanUp() {
    channels.forEach(ManagedChannel::shutdownNow);
    RegentClient admin = client();
    admin.leases().list().forEach(l -> admin.leases().revoke(l.getId()));
    clients.forEach(RegentClient::close);
  }

  /** A client on a connection of its own. */
  RegentClient client() {
    RegentClient c = RegentClient.connect(cluster.endpoint(0));
    clients.add(c);
    return c;
  }

  ManagedChannel channel() {
    String[] hostPort = cluster.endpoint(0).split(":");
    ManagedChannel ch = NettyChannelBuilder.forAddress(hostPort[0], Integer.parseInt(hostPort[1])).usePlaintext()
        .build();
    channels.add(ch);
    return ch;
  }

  @Test
  void aTtlAboveTheServersMaximumIsExhaustedAndAboveAnHourIsInvalid() {
    RegentClient a = client();
    assertExhausted(() -> a.leases().grant(60_001), "--max-ttl 60000 ms");
    assertThatThrownBy(() -> a.leases().grant(3_600_001)).isInstanceOfSatisfying(StatusRuntimeException.class,
        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
    assertThat(a.leases().list()).isEmpty();
    assertThat(a.leases().grant(60_000)).isPositive();
  }

  @Test
  void aConnectionHoldsAtMostItsLeasesWhileAnotherConnectionStillGrants() {
    RegentClient a = client();
    long first = a.leases().grant(60_000);
    a.leases().grant(60_000);
    a.leases().grant(60_000);
    assertExhausted(() -> a.leases().grant(60_000), "--max-leases-per-connection 3");
    assertThat(a.leases().list()).hasSize(3);
    RegentClient b = client();
    assertThat(b.leases().grant(60_000)).isPositive();
    a.leases().revoke(first);
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(a.leases().grant(60_000)).isPositive());
  }

  @Test
  void namesBeyondTheClusterLimitAreRefusedAtApplyAndHeldNamesStayServed() {
    RegentClient a = client();
    long lease = a.leases().grant(60_000);
    for (int i = 0; i < 4; i++) {
      a.elections().campaign("name-" + i, lease, ByteString.copyFromUtf8("v"));
    }
    assertExhausted(() -> a.elections().campaign("name-4", lease, ByteString.EMPTY), "--max-names 4");
    assertThat(a.elections().leader("name-4")).isEmpty();
    assertThat(a.elections().campaign("name-0", lease, ByteString.copyFromUtf8("v")).getName())
        .as("a retried campaign on a held name is not a new name").isEqualTo("name-0");
  }

  @Test
  void candidatesBeyondTheLimitAreRefusedAndTheQueueIsUnchanged() {
    RegentClient a = client();
    LeaderKey holder = a.elections().campaign("queue", a.leases().grant(60_000), ByteString.copyFromUtf8("holder"));
    ElectionGrpc.ElectionStub stub = ElectionGrpc.newStub(channel());
    List<CompletableFuture<CampaignResponse>> waiting = new ArrayList<>();
    List<Long> waitingLeases = new ArrayList<>();
    // One at a time: each queued before the next is sent, so that waiting.get(0) is first in line (two campaigns in
    // flight together may be applied in either order: a clean-clone run saw the second elected by the resign,
    // and the first then waited for ever); and both queued before the third arrives, or the third could take a
    // free place.
    for (int i = 0; i < 2; i++) {
      long lease = a.leases().grant(60_000);
      waitingLeases.add(lease);
      waiting.add(AsyncCampaign.campaign(stub, "queue", lease));
      await().atMost(Duration.ofSeconds(30)).until(() -> a.leases().timeToLive(lease).getNamesCount() == 1);
    }
    long third = client().leases().grant(60_000);
    assertExhausted(() -> AsyncCampaign.campaign(stub, "queue", third).get(30, TimeUnit.SECONDS), "--max-candidates 2");
    assertThat(a.leases().timeToLive(third).getNamesList()).isEmpty();
    assertThat(a.elections().leader("queue")).contains(holder);
    a.elections().resign(holder);
    assertThat(waiting.get(0)).succeedsWithin(Duration.ofSeconds(30))
        .satisfies(r -> assertThat(r.getElected()).isTrue());
  }

  @Test
  void callsInProgressPerConnectionAreCappedWhileOtherConnectionsAreServed() {
    ManagedChannel busy = channel();
    ElectionGrpc.ElectionStub stub = ElectionGrpc.newStub(busy);
    List<CompletableFuture<Void>> streams = new ArrayList<>();
    List<Runnable> cancels = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      io.grpc.Context.CancellableContext ctx = io.grpc.Context.current().withCancellation();
      CompletableFuture<Void> ended = new CompletableFuture<>();
      ctx.run(() -> stub.observe(ObserveRequest.newBuilder().setName("watched").build(), ending(ended)));
      streams.add(ended);
      cancels.add(() -> ctx.cancel(null));
    }
    // gRPC runs the interceptor of each new call on its own executor task, so any one of the six may be the
    // one counted last: exactly one is refused, whichever it is.
    CompletableFuture<Object> firstEnded = CompletableFuture.anyOf(streams.toArray(CompletableFuture[]::new));
    assertExhausted(() -> firstEnded.get(30, TimeUnit.SECONDS), "--max-calls-per-connection");
    int refused = streams.indexOf(streams.stream().filter(CompletableFuture::isDone).findFirst().orElseThrow());
    assertThat(streams).filteredOn(CompletableFuture::isDone).hasSize(1);
    cancels.remove(refused);
    RegentClient other = client();
    assertThat(other.elections().leader("watched")).isEmpty();
    cancels.get(0).run();
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      CompletableFuture<Void> again = new CompletableFuture<>();
      io.grpc.Context.CancellableContext ctx = io.grpc.Context.current().withCancellation();
      ctx.run(() -> stub.observe(ObserveRequest.newBuilder().setName("watched").build(), ending(again)));
      try {
        assertThat(again).isNotCompleted();
      } finally {
        ctx.cancel(null);
      }
    });
    cancels.forEach(Runnable::run);
  }

  @Test
  void aMessageAboveTheSizeLimitIsRefusedBeforeAnyHandler() {
    RegentClient a = client();
    long lease = a.leases().grant(60_000);
    assertExhausted(() -> a.elections().campaign("big", lease, ByteString.copyFrom(new byte[80_000])), "");
    assertThat(a.elections().leader("big")).isEmpty();
  }

  static StreamObserver<ObserveResponse> ending(CompletableFuture<Void> ended) {
    return new StreamObserver<>() {
      @Override
      public void onNext(ObserveResponse value) {
      }

      @Override
      public void onError(Throwable t) {
        ended.completeExceptionally(t);
      }

      @Override
      public void onCompleted() {
        ended.complete(null);
      }
    };
  }

  static void assertExhausted(ThrowingCallable call, String mentions) {
    assertThatThrownBy(call).satisfies(t -> {
      Status s = Status.fromThrowable(t);
      assertThat(s.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertThat(s.getDescription()).contains(mentions);
    });
  }
}
