package io.regent.server.etcd;

import io.etcd.jetcd.api.CampaignRequest;
import io.etcd.jetcd.api.CampaignResponse;
import io.etcd.jetcd.api.ElectionGrpc;
import io.etcd.jetcd.api.KeyValue;
import io.etcd.jetcd.api.LeaderKey;
import io.etcd.jetcd.api.LeaderRequest;
import io.etcd.jetcd.api.LeaderResponse;
import io.etcd.jetcd.api.ProclaimRequest;
import io.etcd.jetcd.api.ProclaimResponse;
import io.etcd.jetcd.api.ResignRequest;
import io.etcd.jetcd.api.ResignResponse;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.ObserveRequest;
import io.regent.api.v1.ObserveResponse;

/**
 * etcd's {@code v3electionpb.Election} service on Regent's elections. A leader key is {@code NAME/LEASE}
 * ({@link EtcdKeys}) and its {@code rev} the holder's fencing token; the leader's {@code create_revision} and
 * {@code mod_revision} are that token too. etcd's refusals keep etcd's descriptions, which its clients match:
 * Proclaim by a lease that does not hold the name is UNKNOWN "election: not leader", Leader of a name nobody holds
 * UNKNOWN "election: no leader"; a Resign by a lease that holds the name no longer succeeds, as etcd's does.
 * Observe streams the holder, then each new holder or proclamation; a name falling free sends nothing, as in etcd.
 */
final class EtcdElectionService extends ElectionGrpc.ElectionImplBase {
  /** etcd's descriptions (its {@code concurrency.ErrElectionNotLeader} and {@code ErrElectionNoLeader}). */
  static final String NOT_LEADER = "election: not leader";
  static final String NO_LEADER = "election: no leader";

  private final Headers headers;

  EtcdElectionService(Headers headers) {
    this.headers = headers;
  }

  @Override
  public void campaign(CampaignRequest req, StreamObserver<CampaignResponse> obs) {
    String name = EtcdKeys.name(req.getName());
    Upstream.current().election().campaign(io.regent.api.v1.CampaignRequest.newBuilder().setName(name)
        .setLease(req.getLease()).setValue(req.getValue()).build(), AnswerRelay.unary(obs, r -> {
          io.regent.api.v1.LeaderKey k = r.getLeader();
          return CampaignResponse.newBuilder().setHeader(headers.at(k.getToken())).setLeader(LeaderKey.newBuilder()
              .setName(req.getName()).setKey(EtcdKeys.key(name, k.getLease())).setRev(k.getToken())
              .setLease(k.getLease())).build();
        }));
  }

  @Override
  public void proclaim(ProclaimRequest req, StreamObserver<ProclaimResponse> obs) {
    if (!req.hasLeader()) {
      obs.onError(missingLeader());
      return;
    }
    Upstream.current().election().proclaim(io.regent.api.v1.ProclaimRequest.newBuilder()
        .setLeader(regentKey(req.getLeader())).setValue(req.getValue()).build(),
        AnswerRelay.unary(obs,
            r -> ProclaimResponse.newBuilder().setHeader(headers.at(r.getLeader().getToken())).build(),
            s -> null, EtcdElectionService::notLeader));
  }

  @Override
  public void leader(LeaderRequest req, StreamObserver<LeaderResponse> obs) {
    String name = EtcdKeys.name(req.getName());
    Upstream.current().election().leader(io.regent.api.v1.LeaderRequest.newBuilder().setName(name).build(),
        AnswerRelay.unary(obs, r -> answer(r.getLeader(), r.getAppliedIndex()), s -> null,
            s -> s.getCode() == Status.Code.NOT_FOUND ? Status.UNKNOWN.withDescription(NO_LEADER) : s));
  }

  @Override
  public void observe(LeaderRequest req, StreamObserver<LeaderResponse> obs) {
    Upstream.current().election().observe(ObserveRequest.newBuilder().setName(EtcdKeys.name(req.getName())).build(),
        new StreamObserver<>() {
          @Override
          public void onNext(ObserveResponse e) {
            if (e.hasLeader()) {
              obs.onNext(answer(e.getLeader(), e.getIndex()));
            }
          }

          @Override
          public void onError(Throwable t) {
            obs.onError(t);
          }

          @Override
          public void onCompleted() {
            obs.onCompleted();
          }
        });
  }

  @Override
  public void resign(ResignRequest req, StreamObserver<ResignResponse> obs) {
    if (!req.hasLeader()) {
      obs.onError(missingLeader());
      return;
    }
    Upstream.current().election().resign(io.regent.api.v1.ResignRequest.newBuilder()
        .setLeader(regentKey(req.getLeader())).build(),
        AnswerRelay.unary(obs, r -> ResignResponse.newBuilder().setHeader(headers.at(r.getIndex())).build(),
            s -> s.getCode() == Status.Code.FAILED_PRECONDITION
                ? ResignResponse.newBuilder().setHeader(headers.at(0)).build() : null, s -> s));
  }

  /** The holder {@code k} as etcd's Leader and Observe answer it, at log index {@code index}. */
  private LeaderResponse answer(io.regent.api.v1.LeaderKey k, long index) {
    return LeaderResponse.newBuilder().setHeader(headers.at(index)).setKv(KeyValue.newBuilder()
        .setKey(EtcdKeys.key(k.getName(), k.getLease())).setValue(k.getValue()).setCreateRevision(k.getToken())
        .setModRevision(k.getToken()).setVersion(1).setLease(k.getLease())).build();
  }

  /** Regent's key for etcd's: the name, the lease, and the fencing token etcd calls {@code rev}. */
  static io.regent.api.v1.LeaderKey regentKey(LeaderKey k) {
    return io.regent.api.v1.LeaderKey.newBuilder().setName(EtcdKeys.name(k.getName())).setToken(k.getRev())
        .setLease(k.getLease()).build();
  }

  private static Status notLeader(Status s) {
    return s.getCode() == Status.Code.FAILED_PRECONDITION ? Status.UNKNOWN.withDescription(NOT_LEADER) : s;
  }

  private static RuntimeException missingLeader() {
    return Status.INVALID_ARGUMENT.withDescription("\"leader\" field must be provided").asRuntimeException();
  }
}
