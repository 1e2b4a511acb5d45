package io.regent.server.api;

import io.regent.server.membership.ClusterView;
import io.regent.server.membership.Membership;
import io.grpc.stub.StreamObserver;
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

  ClusterService(ClusterView view, Confirmer confirmer) {
    this.view = view;
    this.confirmer = confirmer;
  }

  @Override
  public void status(StatusRequest req, StreamObserver<StatusResponse> obs) {
    CompletableFuture<?> ready = req.getSerializable()
        ? CompletableFuture.completedFuture(null) : confirmer.confirm(List.of(), List.of());
    CallAnswers.reply(ready, x -> view.status(), obs);
  }

  @Override
  public void memberList(MemberListRequest req, StreamObserver<MemberListResponse> obs) {
    CallAnswers.reply(view.membership().list(), r -> r, obs);
  }

  @Override
  public void memberAdd(MemberAddRequest req, StreamObserver<MemberAddResponse> obs) {
    CallAnswers.guard(obs, () -> CallAnswers.reply(view.membership().add(MemberArgs.id(req.getId()),
            MemberArgs.address("Raft address", req.getRaftAddress()),
            MemberArgs.address("API address", req.getApiAddress())),
        m -> MemberAddResponse.newBuilder().addAllMembers(m).build(), obs));
  }

  @Override
  public void memberPromote(MemberPromoteRequest req, StreamObserver<MemberPromoteResponse> obs) {
    CallAnswers.guard(obs, () -> CallAnswers.reply(view.membership().promote(MemberArgs.id(req.getId())),
        m -> MemberPromoteResponse.newBuilder().addAllMembers(m).build(), obs));
  }

  @Override
  public void memberRemove(MemberRemoveRequest req, StreamObserver<MemberRemoveResponse> obs) {
    CallAnswers.guard(obs, () -> CallAnswers.reply(view.membership().remove(MemberArgs.id(req.getId())),
        m -> MemberRemoveResponse.newBuilder().addAllMembers(m).build(), obs));
  }

  @Override
  public void transferLeadership(TransferLeadershipRequest req, StreamObserver<TransferLeadershipResponse> obs) {
    CallAnswers.guard(obs, () -> CallAnswers.reply(view.membership().transferLeadership(MemberArgs.id(req.getTo())),
        leader -> TransferLeadershipResponse.newBuilder().setLeader(leader).build(), obs));
  }
}
