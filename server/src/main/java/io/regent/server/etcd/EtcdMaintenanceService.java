package io.regent.server.etcd;

import com.google.protobuf.UnknownFieldSet;
import io.etcd.jetcd.api.AlarmRequest;
import io.etcd.jetcd.api.AlarmResponse;
import io.etcd.jetcd.api.MaintenanceGrpc;
import io.etcd.jetcd.api.StatusRequest;
import io.etcd.jetcd.api.StatusResponse;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;

/**
 * etcd's {@code etcdserverpb.Maintenance} as far as a client touches it on connect and {@code etcdctl endpoint
 * status/health} do (docs/migrating.md "etcd's clients"). Status is this node's Regent {@code Cluster.Status},
 * read locally as etcd's is: {@code version} is Regent's version (not an etcd version), {@code dbSize} the state
 * file's size in bytes, {@code leader} the leader's member id (0 while none is known), {@code raftIndex} the
 * commit index and {@code raftAppliedIndex} the applied index (log indexes, which are revisions here),
 * {@code raftTerm} the term; the header's revision is the applied index. Alarm with action GET lists no alarm:
 * Regent raises none (a full disk stops the node instead, docs/operations.md). Activating or deactivating an
 * alarm, Defragment, Hash, HashKV, Snapshot and MoveLeader are UNIMPLEMENTED, the description naming the call.
 */
final class EtcdMaintenanceService extends MaintenanceGrpc.MaintenanceImplBase {
  /**
   * etcd 3.4's {@code StatusResponse.raftAppliedIndex}: jetcd's copy of rpc.proto predates it, so it goes on the
   * wire as a field the message does not name, which etcd 3.4's clients (etcdctl's "RAFT APPLIED INDEX") read.
   */
  private static final int RAFT_APPLIED_INDEX = 7;

  private final Headers headers;

  EtcdMaintenanceService(Headers headers) {
    this.headers = headers;
  }

  @Override
  public void status(StatusRequest req, StreamObserver<StatusResponse> obs) {
    Upstream.current().cluster().status(io.regent.api.v1.StatusRequest.newBuilder().setSerializable(true).build(),
        AnswerRelay.unary(obs, s -> StatusResponse.newBuilder().setHeader(headers.at(s.getAppliedIndex()))
            .setVersion(s.getVersion()).setDbSize(s.getDbSizeBytes())
            .setLeader(s.getLeader().isEmpty() ? 0 : Headers.memberId(s.getLeader()))
            .setRaftIndex(s.getCommitIndex()).setRaftTerm(s.getTerm())
            .setUnknownFields(UnknownFieldSet.newBuilder().addField(RAFT_APPLIED_INDEX,
                UnknownFieldSet.Field.newBuilder().addVarint(s.getAppliedIndex()).build()).build())
            .build()));
  }

  @Override
  public void alarm(AlarmRequest req, StreamObserver<AlarmResponse> obs) {
    if (req.getAction() != AlarmRequest.AlarmAction.GET) {
      obs.onError(Status.UNIMPLEMENTED.withDescription("etcdserverpb.Maintenance/Alarm with action "
          + req.getAction() + ": Regent raises no alarms, so it lists them only").asRuntimeException());
      return;
    }
    obs.onNext(AlarmResponse.newBuilder().setHeader(headers.at(0)).build());
    obs.onCompleted();
  }
}
