package io.regent.server.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.CampaignRequest;
import io.regent.api.v1.CampaignResponse;
import io.regent.api.v1.ElectionGrpc;
import io.regent.api.v1.LeaderRequest;
import io.regent.api.v1.LeaseGrantRequest;
import io.regent.api.v1.LeaseGrpc;
import io.regent.api.v1.LeaseKeepAliveRequest;
import io.regent.api.v1.LeaseKeepAliveResponse;
import io.regent.api.v1.ObserveRequest;
import io.regent.api.v1.ObserveResponse;
import io.regent.server.cluster.ClusterFixture;
import io.regent.server.cluster.LocalCluster;
import io.regent.server.limits.Admission;
import io.regent.server.limits.AdmissionLimits;
import io.regent.server.limits.ServerLimits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A node whose bulk lane is full (two campaigns waiting on a held name, a limit of two bulk calls) refuses a
 * further read at once with RESOURCE_EXHAUSTED, the limit's name and a retry hint, and still renews a lease
 * (docs/architecture.md §7.2). Negative control: with the priority lanes off, the same keepalive is shed too.
 * An open stream counts against its identity's streams, not against the bulk lane.
 */
@Tag("cluster")
class PriorityLanesTest {
  static final long RETRY_MS = 250;
  @RegisterExtension
  final ClusterFixture clusters = ClusterFixture.perTest();
  final List<ManagedChannel> channels = new ArrayList<>();

  @AfterEach
  void closeChannels() {
    channels.forEach(ManagedChannel::shutdownNow);
  }

  static ServerLimits limits(boolean priorityLanes) {
    return ServerLimits.DEFAULTS.withAdmission(new AdmissionLimits(2, 2, 10_000, 10_000, 1_000, 1_000, 100, RETRY_MS,
        priorityLanes));
  }

  @Test
  void aKeepaliveIsRenewedWhileTheBulkLaneIsFullAndAReadIsShedWithAHint() throws Exception {
    Full full = fill(true);
    StatusRuntimeException shed = full.read();
    assertThat(shed).isNotNull();
    assertThat(shed.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(shed.getStatus().getDescription()).contains("--max-bulk-calls").contains("retry in " + RETRY_MS);
    assertThat(shed.getTrailers().get(Metadata.Key.of(Admission.RETRY_PUSHBACK_KEY,
        Metadata.ASCII_STRING_MARSHALLER))).isEqualTo(Long.toString(RETRY_MS));

    LeaseKeepAliveResponse renewed = full.leases.withDeadlineAfter(5, TimeUnit.SECONDS)
        .keepAlive(LeaseKeepAliveRequest.newBuilder().setId(full.lease).build());
    assertThat(renewed.getTtlMs()).isPositive();

    full.waiting.forEach(w -> w.cancel(true));
    full.channel.shutdownNow(); // the waiting campaigns end, and give their places back
    await().atMost(Duration.ofSeconds(10)).until(() -> full.read() == null);
  }

  @Test
  void negativeControlWithoutLanesTheKeepaliveIsShedLikeARead() throws Exception {
    Full full = fill(false);
    StatusRuntimeException refused = catchThrowableOfType(() -> full.leases.withDeadlineAfter(5, TimeUnit.SECONDS)
        .keepAlive(LeaseKeepAliveRequest.newBuilder().setId(full.lease).build()), StatusRuntimeException.class);
    assertThat(refused).isNotNull();
    assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(refused.getStatus().getDescription()).contains("--max-bulk-calls");
  }

  @Test
  void anOpenStreamCountsAgainstItsIdentityNotAgainstTheBulkLane() throws Exception {
    LocalCluster cluster = clusters.start(1, c -> c.limits(ServerLimits.DEFAULTS.withAdmission(
        new AdmissionLimits(1, 1, 10_000, 10_000, 1_000, 1_000, 2, RETRY_MS, true))));
    cluster.awaitLeader();
    ManagedChannel ch = channel(cluster.endpoint(0));
    ElectionGrpc.ElectionStub async = ElectionGrpc.newStub(ch);
    List<CompletableFuture<Status>> streams = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      streams.add(observe(async, "watched"));
    }
    // the third is refused at once; the first two stay open
    Status third = await().atMost(Duration.ofSeconds(10)).until(() -> streams.stream().filter(CompletableFuture::isDone)
        .findFirst().map(CompletableFuture::join).orElse(null), s -> s != null);
    assertThat(third.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(third.getDescription()).contains("identity '" + Admission.DEFAULT_IDENTITY + "'")
        .contains("--max-streams-per-identity");
    assertThat(streams.stream().filter(CompletableFuture::isDone)).hasSize(1);
    // two open streams, and the bulk lane (one call) is still free for a read: answered, the name has no holder
    StatusRuntimeException read = catchThrowableOfType(() -> ElectionGrpc.newBlockingStub(ch)
        .withDeadlineAfter(5, TimeUnit.SECONDS).leader(LeaderRequest.newBuilder().setName("watched").build()),
        StatusRuntimeException.class);
    assertThat(read.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
  }

  static CompletableFuture<Status> observe(ElectionGrpc.ElectionStub stub, String name) {
    CompletableFuture<Status> ended = new CompletableFuture<>();
    stub.observe(ObserveRequest.newBuilder().setName(name).build(), new StreamObserver<>() {
      @Override
      public void onNext(ObserveResponse r) {
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
    return ended;
  }

  /** One node with its bulk lane full: a held name and two campaigns waiting for it. */
  Full fill(boolean priorityLanes) throws Exception {
    LocalCluster cluster = clusters.start(1, c -> c.limits(limits(priorityLanes)));
    cluster.awaitLeader();
    ManagedChannel holderChannel = channel(cluster.endpoint(0));
    LeaseGrpc.LeaseBlockingStub leases = LeaseGrpc.newBlockingStub(holderChannel);
    long held = leases.grant(LeaseGrantRequest.newBuilder().setTtlMs(60_000).build()).getId();
    ElectionGrpc.newBlockingStub(holderChannel)
        .campaign(CampaignRequest.newBuilder().setName("busy").setLease(held).build());
    ManagedChannel waitersChannel = channel(cluster.endpoint(0));
    List<CompletableFuture<CampaignResponse>> waiting = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      long lease = leases.grant(LeaseGrantRequest.newBuilder().setTtlMs(60_000).build()).getId();
      waiting.add(AsyncCampaign.campaign(ElectionGrpc.newStub(waitersChannel), "busy", lease));
    }
    Full full = new Full(cluster, leases, held, waitersChannel, waiting,
        ElectionGrpc.newBlockingStub(holderChannel));
    // the campaigns reach the node in their own time: once both wait, the lane is full and a read is shed
    await().atMost(Duration.ofSeconds(10)).until(() -> full.read() != null);
    assertThat(waiting).noneMatch(CompletableFuture::isDone);
    return full;
  }

  record Full(LocalCluster cluster, LeaseGrpc.LeaseBlockingStub leases, long lease, ManagedChannel channel,
              List<CompletableFuture<CampaignResponse>> waiting, ElectionGrpc.ElectionBlockingStub reads) {
    /** A Leader read: null when served, its refusal otherwise. */
    StatusRuntimeException read() {
      try {
        reads.withDeadlineAfter(5, TimeUnit.SECONDS).leader(LeaderRequest.newBuilder().setName("busy").build());
        return null;
      } catch (StatusRuntimeException e) {
        return e;
      }
    }
  }

  ManagedChannel channel(String endpoint) {
    String[] hostPort = endpoint.split(":");
    ManagedChannel ch = NettyChannelBuilder.forAddress(hostPort[0], Integer.parseInt(hostPort[1])).usePlaintext()
        .build();
    channels.add(ch);
    return ch;
  }
}
