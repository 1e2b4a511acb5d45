package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The gRPC health service follows readiness; reflection answers in v1 and v1alpha. */
@Tag("cluster")
class HealthClusterTest {
  private static final List<String> SERVICES =
      List.of("", "regent.v1.Lease", "regent.v1.Election", "regent.v1.Lock", "regent.v1.Cluster");
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir
  Path dir;
  LocalCluster cluster;
  ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    cluster = LocalCluster.start(3, dir);
  }

  @AfterEach
  void stop() throws Exception {
    if (channel != null) {
      channel.shutdownNow();
    }
    cluster.close();
  }

  private ManagedChannel channelTo(int i) {
    String e = cluster.endpoint(i);
    channel = NettyChannelBuilder.forTarget(e).usePlaintext().build();
    return channel;
  }

  private static ServingStatus health(ManagedChannel ch, String service) {
    return HealthGrpc.newBlockingStub(ch).withDeadlineAfter(5, TimeUnit.SECONDS)
        .check(HealthCheckRequest.newBuilder().setService(service).build()).getStatus();
  }

  private static boolean all(ManagedChannel ch, ServingStatus expected) {
    return SERVICES.stream().allMatch(s -> health(ch, s) == expected);
  }

  @Test
  void aNodeIsServingWithALeaderAndNotServingWhileItHasNone() {
    int leader = cluster.awaitLeader();
    int follower = (leader + 1) % 3;
    ManagedChannel ch = channelTo(follower);
    await().atMost(WAIT).until(() -> all(ch, ServingStatus.SERVING));
    cluster.isolate(follower); // it hears no leader, times out, and campaigns in vain
    await().atMost(WAIT).until(() -> all(ch, ServingStatus.NOT_SERVING));
    cluster.heal();
    await().atMost(WAIT).until(() -> all(ch, ServingStatus.SERVING));
  }

  @Test
  void aNodeStartedWithoutAQuorumIsNotServing() throws Exception {
    cluster.awaitLeader();
    cluster.stopNode(0);
    cluster.stopNode(1);
    cluster.stopNode(2);
    cluster.startNode(2); // alone: no leader can be elected
    ManagedChannel ch = channelTo(2);
    assertThat(SERVICES).allSatisfy(s -> assertThat(health(ch, s)).isEqualTo(ServingStatus.NOT_SERVING));
    cluster.startNode(0);
    await().atMost(WAIT).until(() -> all(ch, ServingStatus.SERVING));
  }

  @Test
  void reflectionListsRegentsServicesInV1AndV1alpha() throws Exception {
    ManagedChannel ch = channelTo(0);
    CompletableFuture<List<String>> v1 = new CompletableFuture<>();
    var v1Requests = io.grpc.reflection.v1.ServerReflectionGrpc.newStub(ch).serverReflectionInfo(
        new StreamObserver<io.grpc.reflection.v1.ServerReflectionResponse>() {
          @Override
          public void onNext(io.grpc.reflection.v1.ServerReflectionResponse r) {
            v1.complete(r.getListServicesResponse().getServiceList().stream()
                .map(io.grpc.reflection.v1.ServiceResponse::getName).toList());
          }

          @Override
          public void onError(Throwable t) {
            v1.completeExceptionally(t);
          }

          @Override
          public void onCompleted() {
          }
        });
    v1Requests.onNext(io.grpc.reflection.v1.ServerReflectionRequest.newBuilder().setListServices("").build());
    CompletableFuture<List<String>> alpha = new CompletableFuture<>();
    var alphaRequests = io.grpc.reflection.v1alpha.ServerReflectionGrpc.newStub(ch).serverReflectionInfo(
        new StreamObserver<io.grpc.reflection.v1alpha.ServerReflectionResponse>() {
          @Override
          public void onNext(io.grpc.reflection.v1alpha.ServerReflectionResponse r) {
            alpha.complete(r.getListServicesResponse().getServiceList().stream()
                .map(io.grpc.reflection.v1alpha.ServiceResponse::getName).toList());
          }

          @Override
          public void onError(Throwable t) {
            alpha.completeExceptionally(t);
          }

          @Override
          public void onCompleted() {
          }
        });
    alphaRequests.onNext(io.grpc.reflection.v1alpha.ServerReflectionRequest.newBuilder().setListServices("")
        .build());
    assertThat(v1.get(10, TimeUnit.SECONDS)).contains("regent.v1.Lease", "regent.v1.Election", "regent.v1.Lock",
        "regent.v1.Cluster", "grpc.health.v1.Health");
    assertThat(alpha.get(10, TimeUnit.SECONDS)).contains("regent.v1.Lease", "regent.v1.Election");
    v1Requests.onCompleted();
    alphaRequests.onCompleted();
  }
}
