package io.regent.server.api;

import io.regent.server.membership.ClusterView;
import io.regent.server.membership.Membership;
import io.grpc.stub.StreamObserver;
import io.grpc.Status;
import io.regent.api.v1.CellStatus;
import io.regent.api.v1.ClusterGrpc;
import io.regent.api.v1.MemberAddRequest;
import io.regent.api.v1.MemberAddResponse;
import io.regent.api.v1.MemberListRequest;
import io.regent.api.v1.MemberListResponse;
import io.regent.api.v1.MemberPromoteRequest;
import io.regent.api.v1.MemberPromoteResponse;
import io.regent.api.v1.MemberRemoveRequest;
import io.regent.api.v1.MemberRemoveResponse;
import io.regent.api.v1.StatusRequest;
import io.regent.api.v1.StatusResponse;
import io.regent.api.v1.TransferLeadershipRequest;
import io.regent.api.v1.TransferLeadershipResponse;
import io.regent.client.MemberArgs;
import io.regent.server.confirm.Confirmer;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The {@code regent.v1.Cluster} service. Status is this node's view of the group; by default it is taken
 * after a confirmation round, so the reported leader and indexes are at least as new as the call. The
 * membership calls check their arguments' form here and leave the rest to {@link Membership}.
 */
final class ClusterService extends ClusterGrpc.ClusterImplBase {
  private final ClusterView view;
  private final Confirmer confirmer;
  private final List<ClusterView> cells;

  /**
   * @param view cell 0's, whose Raft group Status and the membership calls are about
   * @param cells every cell's, in cell order, for Status's {@code cells}; one (or none) on a cluster of one cell
   */
  ClusterService(ClusterView view, Confirmer confirmer, List<ClusterView> cells) {
    this.view = view;
    this.confirmer = confirmer;
    this.cells = cells.size() > 1 ? List.copyOf(cells) : List.of();
  }

  @Override
  public void status(StatusRequest req, StreamObserver<StatusResponse> obs) {
    CompletableFuture<?> ready = req.getSerializable()
        ? CompletableFuture.completedFuture(null) : confirmer.confirm(List.of(), List.of());
    CallAnswers.reply(ready, x -> {
      StatusResponse s = view.status();
      if (cells.isEmpty()) {
        return s;
      }
      StatusResponse.Builder b = s.toBuilder();
      for (int c = 0; c < cells.size(); c++) {
        b.addCells(cellStatus(c, cells.get(c)));
      }
      return b.build();
    }, obs);
  }

  /** Cell {@code cell} as this node's division sees it; {@code STOPPED} when that division stopped or is gone. */
  private static CellStatus cellStatus(int cell, ClusterView view) {
    CellStatus.Builder b = CellStatus.newBuilder().setCell(cell);
    try {
      StatusResponse s = view.status();
      return b.setLeader(s.getLeader()).setTerm(s.getTerm()).setCommitIndex(s.getCommitIndex())
          .setAppliedIndex(s.getAppliedIndex()).setRole(s.getRole()).build();
    } catch (RuntimeException e) {
      return b.setRole("STOPPED").build(); // a closed division: its status cannot be read
    }
  }

  @Override
  public void memberList(MemberListRequest req, StreamObserver<MemberListResponse> obs) {
    CallAnswers.reply(view.membership().list(), r -> r, obs);
  }

  /**
   * FAILED_PRECONDITION on a cluster of several cells: a membership change would change cell 0's group only
   * (docs/architecture.md §14).
   */
  private void refuseWithCells() {
    if (!cells.isEmpty()) {
      throw Status.FAILED_PRECONDITION.withDescription("membership changes of a cluster of several cells are not "
          + "supported in this release: they would change cell 0's Raft group only (docs/architecture.md §14)")
          .asRuntimeException();
    }
  }

  @Override
  public void memberAdd(MemberAddRequest req, StreamObserver<MemberAddResponse> obs) {
    CallAnswers.guard(obs, () -> {
      refuseWithCells();
      CallAnswers.reply(view.membership().add(MemberArgs.id(req.getId()),
              MemberArgs.address("Raft address", req.getRaftAddress()),
              MemberArgs.address("API address", req.getApiAddress())),
          m -> MemberAddResponse.newBuilder().addAllMembers(m).build(), obs);
    });
  }

  @Override
  public void memberPromote(MemberPromoteRequest req, StreamObserver<MemberPromoteResponse> obs) {
    CallAnswers.guard(obs, () -> {
      refuseWithCells();
      CallAnswers.reply(view.membership().promote(MemberArgs.id(req.getId())),
          m -> MemberPromoteResponse.newBuilder().addAllMembers(m).build(), obs);
    });
  }

  @Override
  public void memberRemove(MemberRemoveRequest req, StreamObserver<MemberRemoveResponse> obs) {
    CallAnswers.guard(obs, () -> {
      refuseWithCells();
      CallAnswers.reply(view.membership().remove(MemberArgs.id(req.getId())),
          m -> MemberRemoveResponse.newBuilder().addAllMembers(m).build(), obs);
    });
  }

  @Override
  public void transferLeadership(TransferLeadershipRequest req, StreamObserver<TransferLeadershipResponse> obs) {
    CallAnswers.guard(obs, () -> CallAnswers.reply(view.membership().transferLeadership(MemberArgs.id(req.getTo())),
        leader -> TransferLeadershipResponse.newBuilder().setLeader(leader).build(), obs));
  }
}
