package io.regent.server.etcd;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.api.LeaseGrantRequest;
import io.etcd.jetcd.api.LeaseGrantResponse;
import io.etcd.jetcd.api.LeaseGrpc;
import io.etcd.jetcd.api.LeaseKeepAliveRequest;
import io.etcd.jetcd.api.LeaseKeepAliveResponse;
import io.etcd.jetcd.api.LeaseRevokeRequest;
import io.etcd.jetcd.api.LeaseRevokeResponse;
import io.etcd.jetcd.api.LeaseTimeToLiveRequest;
import io.etcd.jetcd.api.LeaseTimeToLiveResponse;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.regent.server.api.StateReader;
import io.regent.statemachine.limits.Limits;

/**
 * etcd's {@code etcdserverpb.Lease} service on Regent's leases. TTLs are whole seconds on etcd's wire and
 * milliseconds in Regent: a TTL below the cluster's minimum is raised to it, as etcd raises it to its own
 * minimum; one above Regent's 1 h is OUT_OF_RANGE "etcdserver: too large lease TTL"; a lease id chosen by the
 * client is INVALID_ARGUMENT (Regent's ids are log indexes). A lease not found is etcd's NOT_FOUND
 * "etcdserver: requested lease not found" for a revoke, TTL 0 in a keepalive answer and TTL −1 from
 * LeaseTimeToLive, as etcd answers (docs/migrating.md). LeaseLeases: {@link EtcdLeaseLeases}.
 */
final class EtcdLeaseService extends LeaseGrpc.LeaseImplBase {
  /** etcd's description of a missing lease (its {@code rpctypes.ErrGRPCLeaseNotFound}), which clients match. */
  static final String LEASE_NOT_FOUND = "etcdserver: requested lease not found";
  private static final long MAX_TTL_S = Limits.MAX_TTL_MS / 1000;

  private final Headers headers;
  private final long minTtlS;
  private final StateReader reader;

  /**
   * @param minTtlMs the cluster's smallest TTL, ms: smaller etcd TTLs are raised to it, in whole seconds
   * @param reader this node's read path, for the keyspace's keys attached to a lease
   */
  EtcdLeaseService(Headers headers, long minTtlMs, StateReader reader) {
    this.headers = headers;
    this.minTtlS = seconds(minTtlMs);
    this.reader = reader;
  }

  /** {@code ms} in whole seconds, rounded up: a granted TTL is never reported shorter than it is. */
  static long seconds(long ms) {
    return (ms + 999) / 1000;
  }

  @Override
  public void leaseGrant(LeaseGrantRequest req, StreamObserver<LeaseGrantResponse> obs) {
    if (req.getID() != 0) {
      obs.onError(Status.INVALID_ARGUMENT.withDescription("a lease ID chosen by the client is not supported: "
          + "Regent's lease ids are the log indexes of their grants; send ID 0").asRuntimeException());
      return;
    }
    long ttlS = Math.max(req.getTTL(), minTtlS);
    if (ttlS > MAX_TTL_S) {
      obs.onError(Status.OUT_OF_RANGE.withDescription("etcdserver: too large lease TTL").asRuntimeException());
      return;
    }
    Upstream.current().lease().grant(io.regent.api.v1.LeaseGrantRequest.newBuilder().setTtlMs(ttlS * 1000).build(),
        AnswerRelay.unary(obs, r -> LeaseGrantResponse.newBuilder().setHeader(headers.at(r.getId())).setID(r.getId())
            .setTTL(ttlS).build()));
  }

  @Override
  public void leaseRevoke(LeaseRevokeRequest req, StreamObserver<LeaseRevokeResponse> obs) {
    Upstream.current().lease().revoke(io.regent.api.v1.LeaseRevokeRequest.newBuilder().setId(req.getID()).build(),
        AnswerRelay.unary(obs, r -> LeaseRevokeResponse.newBuilder().setHeader(headers.at(r.getIndex())).build(),
            s -> null, EtcdLeaseService::notFound));
  }

  @Override
  public StreamObserver<LeaseKeepAliveRequest> leaseKeepAlive(StreamObserver<LeaseKeepAliveResponse> obs) {
    return new EtcdKeepAlives(obs, Upstream.current(), headers);
  }

  /**
   * The lease's TTL, as etcd answers it; with {@code keys}, the keyspace's keys attached to the lease, in key order
   * (read linearizably once Regent's answer came), then the Regent names it holds as {@code NAME/LEASE} keys
   * (docs/migrating.md).
   */
  @Override
  public void leaseTimeToLive(LeaseTimeToLiveRequest req, StreamObserver<LeaseTimeToLiveResponse> obs) {
    long id = req.getID();
    StreamObserver<LeaseTimeToLiveResponse> out = req.getKeys() ? withAttachedKeys(obs, id) : obs;
    Upstream.current().lease().timeToLive(io.regent.api.v1.LeaseTimeToLiveRequest.newBuilder().setId(id).build(),
        AnswerRelay.unary(out, r -> {
          LeaseTimeToLiveResponse.Builder b = LeaseTimeToLiveResponse.newBuilder().setHeader(headers.at(0)).setID(id)
              .setTTL(r.getRemainingMs() / 1000).setGrantedTTL(seconds(r.getTtlMs()));
          if (req.getKeys()) {
            r.getNamesList().forEach(n -> b.addKeys(EtcdKeys.key(n, id)));
          }
          return b.build();
        }, s -> s.getCode() == Status.Code.NOT_FOUND
            ? LeaseTimeToLiveResponse.newBuilder().setHeader(headers.at(0)).setID(id).setTTL(-1).build() : null,
            s -> s));
  }

  /**
   * Answers {@code obs} with the relayed answer and, before its names, the keyspace's keys attached to lease
   * {@code id}; a lease that is gone (TTL −1) holds none.
   */
  private StreamObserver<LeaseTimeToLiveResponse> withAttachedKeys(StreamObserver<LeaseTimeToLiveResponse> obs,
                                                                    long id) {
    return new StreamObserver<>() {
      @Override
      public void onNext(LeaseTimeToLiveResponse answer) {
        if (answer.getTTL() < 0) {
          obs.onNext(answer);
          obs.onCompleted();
          return;
        }
        AnswerRelay.future(obs, () -> reader.read(false, txn -> txn.kv().keysOf(id)).thenApply(keys -> {
          LeaseTimeToLiveResponse.Builder b = answer.toBuilder().clearKeys();
          keys.forEach(k -> b.addKeys(ByteString.copyFrom(k)));
          return b.addAllKeys(answer.getKeysList()).build();
        }));
      }

      @Override
      public void onError(Throwable t) {
        obs.onError(t);
      }

      @Override
      public void onCompleted() {
        // answered by onNext, once the keys are read
      }
    };
  }

  /** Regent's NOT_FOUND for a lease, with etcd's description. */
  static Status notFound(Status s) {
    return s.getCode() == Status.Code.NOT_FOUND ? Status.NOT_FOUND.withDescription(LEASE_NOT_FOUND) : s;
  }
}
