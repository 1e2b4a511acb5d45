package io.regent.server.api;

import io.grpc.stub.StreamObserver;
import io.regent.api.v1.GroupGrpc;
import io.regent.api.v1.GroupJoinRequest;
import io.regent.api.v1.GroupJoinResponse;
import io.regent.api.v1.GroupLeaveRequest;
import io.regent.api.v1.GroupLeaveResponse;
import io.regent.api.v1.GroupReleaseRequest;
import io.regent.api.v1.GroupReleaseResponse;
import io.regent.api.v1.GroupStatusRequest;
import io.regent.api.v1.GroupStatusResponse;
import io.regent.api.v1.GroupWatchRequest;
import io.regent.api.v1.GroupWatchResponse;

/**
 * {@code regent.v1.Group} over several cells: a group lives in the cell of its name, and a member's lease must be
 * of that cell (docs/architecture.md §14).
 */
final class RoutedGroupService extends GroupGrpc.GroupImplBase {
  private final CellRoutes routes;

  RoutedGroupService(CellRoutes routes) {
    this.routes = routes;
  }

  @Override
  public void join(GroupJoinRequest req, StreamObserver<GroupJoinResponse> obs) {
    CallAnswers.guard(obs, () -> {
      routes.checkLeaseHolds(req.getLease(), req.getGroup());
      routes.run(routes.cellOfName(req.getGroup()), c -> c.group.join(req, obs));
    });
  }

  @Override
  public void leave(GroupLeaveRequest req, StreamObserver<GroupLeaveResponse> obs) {
    CallAnswers.guard(obs, () -> routes.run(routes.cellOfName(req.getGroup()), c -> c.group.leave(req, obs)));
  }

  @Override
  public void release(GroupReleaseRequest req, StreamObserver<GroupReleaseResponse> obs) {
    CallAnswers.guard(obs, () -> routes.run(routes.cellOfName(req.getGroup()), c -> c.group.release(req, obs)));
  }

  @Override
  public void watch(GroupWatchRequest req, StreamObserver<GroupWatchResponse> obs) {
    CallAnswers.guard(obs, () -> routes.run(routes.cellOfName(req.getGroup()), c -> c.group.watch(req, obs)));
  }

  @Override
  public void status(GroupStatusRequest req, StreamObserver<GroupStatusResponse> obs) {
    CallAnswers.guard(obs, () -> routes.run(routes.cellOfName(req.getGroup()), c -> c.group.status(req, obs)));
  }
}
