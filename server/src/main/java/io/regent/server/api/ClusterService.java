package io.regent.server.api;

import io.grpc.stub.StreamObserver;
import io.regent.api.v1.ClusterGrpc;
import io.regent.api.v1.Member;
import io.regent.api.v1.StatusRequest;
import io.regent.api.v1.StatusResponse;
import io.regent.server.raft.Confirmer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;

/**
 * The {@code regent.v1.Cluster} service. Status is this node's view of the group; by default it is taken
 * after a confirmation round, so the reported leader and indexes are at least as new as the call.
 */
final class ClusterService extends ClusterGrpc.ClusterImplBase {
  private final RaftServer server;
  private final RaftGroupId groupId;
  private final Confirmer confirmer;

  ClusterService(RaftServer server, RaftGroupId groupId, Confirmer confirmer) {
    this.server = server;
    this.groupId = groupId;
    this.confirmer = confirmer;
  }

  @Override
  public void status(StatusRequest req, StreamObserver<StatusResponse> obs) {
    CompletableFuture<?> ready = req.getSerializable()
        ? CompletableFuture.completedFuture(null) : confirmer.confirm(List.of(), List.of());
    Statuses.reply(ready, x -> snapshot(), obs);
  }

  private StatusResponse snapshot() {
    try {
      var division = server.getDivision(groupId);
      DivisionInfo info = division.getInfo();
      StatusResponse.Builder b = StatusResponse.newBuilder()
          .setNode(server.getId().toString())
          .setLeader(info.getLeaderId() == null ? "" : info.getLeaderId().toString())
          .setTerm(info.getCurrentTerm())
          .setCommitIndex(division.getRaftLog().getLastCommittedIndex())
          .setAppliedIndex(info.getLastAppliedIndex())
          .setRole(info.getCurrentRole().name());
      division.getGroup().getPeers().forEach(p -> b.addMembers(Member.newBuilder().setId(p.getId().toString())
          .setAddress(p.getAddress())));
      return b.build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
