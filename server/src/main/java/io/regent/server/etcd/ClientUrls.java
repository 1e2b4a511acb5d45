package io.regent.server.etcd;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.ClusterGrpc;
import io.regent.api.v1.Member;
import io.regent.api.v1.StatusRequest;
import io.regent.api.v1.StatusResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Each member's etcd client address, asked of the member itself: its Regent API's {@code Cluster.Status} names the
 * etcd port it serves ({@code etcd_address}). The replicated state holds every member's API address but not its
 * etcd port, which may differ from node to node ({@code --etcd-port 0}) and change at a restart; asking keeps
 * the answer true without a new log entry. Plaintext, as the etcd port only exists on a node without TLS
 * (docs/security.md).
 */
final class ClientUrls {
  /** How long a member has to answer, ms; one that does not is listed without a client URL. */
  static final long TIMEOUT_MS = 2_000;

  private ClientUrls() {
  }

  /**
   * The etcd address of each of {@code members} that answers within {@link #TIMEOUT_MS} and serves one, by
   * member id; never completes exceptionally (a member that fails is left out).
   */
  static CompletableFuture<Map<String, String>> of(List<Member> members) {
    Map<String, String> urls = new ConcurrentHashMap<>();
    CompletableFuture<?>[] asks = members.stream().filter(m -> !m.getApiAddress().isEmpty())
        .map(m -> etcdAddress(m.getApiAddress()).thenAccept(a -> {
          if (!a.isEmpty()) {
            urls.put(m.getId(), a);
          }
        })).toArray(CompletableFuture[]::new);
    return CompletableFuture.allOf(asks).thenApply(x -> urls);
  }

  /** The etcd address the node with API {@code api} reports; "" when it serves none or does not answer. */
  private static CompletableFuture<String> etcdAddress(String api) {
    ManagedChannel ch = Grpc.newChannelBuilder(api, InsecureChannelCredentials.create()).build();
    CompletableFuture<String> out = new CompletableFuture<>();
    ClusterGrpc.newStub(ch).withDeadlineAfter(TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .status(StatusRequest.newBuilder().setSerializable(true).build(), new StreamObserver<>() {
          @Override
          public void onNext(StatusResponse r) {
            out.complete(r.getEtcdAddress());
          }

          @Override
          public void onError(Throwable t) {
            out.complete("");
          }

          @Override
          public void onCompleted() {
            out.complete("");
          }
        });
    return out.whenComplete((a, err) -> ch.shutdownNow());
  }
}
