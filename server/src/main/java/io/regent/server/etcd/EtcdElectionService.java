package io.regent.server.etcd;

import io.etcd.jetcd.api.CampaignRequest;
import io.etcd.jetcd.api.CampaignResponse;
import io.etcd.jetcd.api.ElectionGrpc;
import io.etcd.jetcd.api.LeaderKey;
import io.etcd.jetcd.api.LeaderRequest;
import io.etcd.jetcd.api.LeaderResponse;
import io.etcd.jetcd.api.ProclaimRequest;
import io.etcd.jetcd.api.ProclaimResponse;
import io.etcd.jetcd.api.ResignRequest;
import io.etcd.jetcd.api.ResignResponse;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.regent.statemachine.proto.KvRecord;
import io.regent.statemachine.proto.LogEntry;

/**
 * etcd's {@code v3electionpb.Election} service, written over the etcd port's keyspace as etcd writes it over its KV
 * (a {@code concurrency.Election} with the request's lease; docs/migrating.md "etcd's Election and Lock"), so that
 * a jetcd Election, Go's {@code concurrency.Election}, {@code etcdctl elect} and npm etcd3's {@code election()} on
 * one name queue together. Regent's own elections ({@code regent elect}) are another thing and are not seen here.
 *
 * <ul>
 *   <li>Campaign puts {@code NAME/LEASE} ({@link EtcdKeys}) with the lease and value unless it exists (a key in
 *       place with another value is proclaimed), and answers once no key under {@code NAME/} was created before it:
 *       {@code leader.rev} is the key's {@code create_revision}, the leader's fencing token, and the header's
 *       revision the index of the entry that queued it. A lease that is not live is NOT_FOUND "etcdserver:
 *       requested lease not found"; a key that goes while it waits is UNKNOWN {@link #KEY_GONE}; a campaign
 *       cancelled while it waits deletes the key it put ({@link QueueAttempt}).</li>
 *   <li>Proclaim puts the value on the leader key while its {@code create_revision} is {@code rev}; otherwise (the
 *       key gone or replaced, or {@code rev} 0) UNKNOWN "election: not leader", etcd's text, which its clients
 *       match.</li>
 *   <li>Leader reads, linearizably, the key of {@code NAME/} created first; none: UNKNOWN "election: no
 *       leader".</li>
 *   <li>Observe streams that key, then the key again each time the leader or its value changes
 *       ({@link LeaderObserve}).</li>
 *   <li>Resign deletes the leader key while its {@code create_revision} is {@code rev}, and succeeds either way, as
 *       etcd's does.</li>
 * </ul>
 */
final class EtcdElectionService extends ElectionGrpc.ElectionImplBase {
  /** etcd's descriptions (its {@code concurrency.ErrElectionNotLeader} and {@code ErrElectionNoLeader}). */
  static final String NOT_LEADER = "election: not leader";
  static final String NO_LEADER = "election: no leader";
  /** A campaign whose key went while it waited (etcd has no text of its own for it). */
  static final String KEY_GONE = "election: the campaign's key is gone (its lease ended, or it was deleted)";

  private final Headers headers;
  private final EtcdKv kv;

  EtcdElectionService(Headers headers, EtcdKv kv) {
    this.headers = headers;
    this.kv = kv;
  }

  @Override
  public void campaign(CampaignRequest req, StreamObserver<CampaignResponse> obs) {
    ServerCallStreamObserver<CampaignResponse> call = (ServerCallStreamObserver<CampaignResponse>) obs;
    AnswerRelay.future(obs, () -> {
      QueueAttempt attempt = QueueAttempt.start(kv, req.getName(), req.getValue(), req.getLease(), true, KEY_GONE)
          .cancelledWith(call);
      return attempt.won().thenApply(w -> CampaignResponse.newBuilder().setHeader(headers.at(w.joined()))
          .setLeader(LeaderKey.newBuilder().setName(req.getName()).setKey(attempt.key()).setRev(w.rev())
              .setLease(req.getLease())).build());
    });
  }

  @Override
  public void proclaim(ProclaimRequest req, StreamObserver<ProclaimResponse> obs) {
    AnswerRelay.future(obs, () -> {
      LeaderKey k = leaderOf(req.hasLeader(), req.getLeader());
      if (k.getRev() <= 0) { // compared as it is, 0 would put the key if absent: no leader has revision 0
        throw Status.UNKNOWN.withDescription(NOT_LEADER).asRuntimeException();
      }
      return kv.write(LogEntry.newBuilder().setKvTxn(KeyQueue.ifCreatedAt(k.getKey(), k.getRev(),
          KeyQueue.put(k.getKey(), req.getValue(), k.getLease())))).thenApply(r -> {
            if (!r.getKv().getSucceeded()) {
              throw Status.UNKNOWN.withDescription(NOT_LEADER).asRuntimeException();
            }
            return ProclaimResponse.newBuilder().setHeader(headers.at(r.getIndex())).build();
          });
    });
  }

  @Override
  public void leader(LeaderRequest req, StreamObserver<LeaderResponse> obs) {
    AnswerRelay.future(obs, () -> kv.reader().read(false, txn -> new First(txn.appliedIndex(),
        KeyQueue.first(txn.kv(), EtcdKeys.prefix(req.getName())))).thenApply(at -> {
          if (at.kv() == null) {
            throw Status.UNKNOWN.withDescription(NO_LEADER).asRuntimeException();
          }
          return LeaderResponse.newBuilder().setHeader(headers.at(at.applied())).setKv(KvResponses.keyValue(at.kv()))
              .build();
        }));
  }

  @Override
  public void observe(LeaderRequest req, StreamObserver<LeaderResponse> obs) {
    LeaderObserve.start((ServerCallStreamObserver<LeaderResponse>) obs, headers, kv, EtcdKeys.prefix(req.getName()));
  }

  @Override
  public void resign(ResignRequest req, StreamObserver<ResignResponse> obs) {
    AnswerRelay.future(obs, () -> {
      LeaderKey k = leaderOf(req.hasLeader(), req.getLeader());
      return kv.write(LogEntry.newBuilder().setKvTxn(KeyQueue.ifCreatedAt(k.getKey(), k.getRev(),
          KeyQueue.delete(k.getKey())))).thenApply(r -> ResignResponse.newBuilder().setHeader(headers.at(
              r.getIndex())).build());
    });
  }

  /** The first key of a queue ({@code null}: none) as of log index {@code applied}. */
  private record First(long applied, KvRecord kv) {
  }

  /** The request's leader key; INVALID_ARGUMENT when it has none. */
  private static LeaderKey leaderOf(boolean present, LeaderKey k) {
    if (!present) {
      throw Status.INVALID_ARGUMENT.withDescription("\"leader\" field must be provided").asRuntimeException();
    }
    return k;
  }
}
