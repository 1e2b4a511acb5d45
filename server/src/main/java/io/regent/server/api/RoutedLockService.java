package io.regent.server.api;

import io.grpc.stub.StreamObserver;
import io.regent.api.v1.LockGrpc;
import io.regent.api.v1.LockRequest;
import io.regent.api.v1.LockResponse;
import io.regent.api.v1.UnlockRequest;
import io.regent.api.v1.UnlockResponse;

/** {@code regent.v1.Lock} over several cells: each call goes to the cell of its lock's name (docs/architecture.md §14). */
final class RoutedLockService extends LockGrpc.LockImplBase {
  private final CellRoutes routes;

  RoutedLockService(CellRoutes routes) {
    this.routes = routes;
  }

  @Override
  public void lock(LockRequest req, StreamObserver<LockResponse> obs) {
    CallAnswers.guard(obs, () -> {
      routes.checkLeaseHolds(req.getLease(), req.getName());
      routes.run(routes.cellOfName(req.getName()), c -> c.lock.lock(req, obs));
    });
  }

  @Override
  public void unlock(UnlockRequest req, StreamObserver<UnlockResponse> obs) {
    CallAnswers.guard(obs, () -> routes.run(routes.cellOfName(req.getKey().getName()), c -> c.lock.unlock(req, obs)));
  }
}
