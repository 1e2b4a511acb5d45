package io.regent.server.api;

import io.grpc.stub.StreamObserver;
import io.regent.api.v1.ClusterGrpc;
import io.regent.api.v1.StatusRequest;
import io.regent.api.v1.StatusResponse;
import io.regent.server.raft.Confirmer;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The {@code regent.v1.Cluster} service. Status is this node's view of the group; by default it is taken
 * after a confirmation round, so the reported leader and indexes are at least as new as the call.
 */
final class ClusterService extends ClusterGrpc.ClusterImplBase {
  private final ClusterView view;
  private final Confirmer confirmer;

  ClusterService(ClusterView view, Confirmer confirmer) {
    this.view = view;
    this.confirmer = confirmer;
  }

  @Override
  public void status(StatusRequest req, StreamObserver<StatusResponse> obs) {
    CompletableFuture<?> ready = req.getSerializable()
        ? CompletableFuture.completedFuture(null) : confirmer.confirm(List.of(), List.of());
    Statuses.reply(ready, x -> view.status(), obs);
  }
}
