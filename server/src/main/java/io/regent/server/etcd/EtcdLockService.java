package io.regent.server.etcd;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.api.DeleteRangeRequest;
import io.etcd.jetcd.api.lock.LockGrpc;
import io.etcd.jetcd.api.lock.LockRequest;
import io.etcd.jetcd.api.lock.LockResponse;
import io.etcd.jetcd.api.lock.UnlockRequest;
import io.etcd.jetcd.api.lock.UnlockResponse;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.regent.statemachine.proto.LogEntry;

/**
 * etcd's {@code v3lockpb.Lock} service, written over the etcd port's keyspace as etcd writes it over its KV (a
 * {@code concurrency.Mutex} with the request's lease; docs/migrating.md "etcd's Election and Lock"), so that it
 * excludes {@code etcdctl lock}, Go's {@code Mutex}, python-etcd3's and npm etcd3's locks on the same name. Lock puts
 * the key {@code NAME/LEASE} ({@link EtcdKeys}) with the lease, empty, and answers once no key under {@code NAME/}
 * was created before it: with that key, and a header whose {@code revision} is the log index at which it found
 * the lock free. The holder's fencing token is its key's {@code create_revision} (no larger than that revision, and
 * larger than every earlier holder's). A Lock whose lease is not live is NOT_FOUND "etcdserver: requested lease not
 * found"; one whose key goes while it waits (its lease ended, or a client deleted it) is UNKNOWN "mutex: session is
 * expired" (etcd 3.5's text); one cancelled while it waits deletes the key it put ({@link QueueAttempt}). Unlock
 * deletes the key it is given, whatever it holds, and succeeds whether or not it was there, as etcd's does.
 */
final class EtcdLockService extends LockGrpc.LockImplBase {
  /** etcd's description of a lock whose key went while it waited ({@code concurrency.ErrSessionExpired}, 3.5). */
  static final String SESSION_EXPIRED = "mutex: session is expired";

  private final Headers headers;
  private final EtcdKv kv;

  EtcdLockService(Headers headers, EtcdKv kv) {
    this.headers = headers;
    this.kv = kv;
  }

  @Override
  public void lock(LockRequest req, StreamObserver<LockResponse> obs) {
    ServerCallStreamObserver<LockResponse> call = (ServerCallStreamObserver<LockResponse>) obs;
    AnswerRelay.future(obs, () -> {
      QueueAttempt attempt = QueueAttempt.start(kv, req.getName(), ByteString.EMPTY, req.getLease(), false,
          SESSION_EXPIRED).cancelledWith(call);
      return attempt.won().thenApply(w -> LockResponse.newBuilder().setHeader(headers.at(w.turn()))
          .setKey(attempt.key()).build());
    });
  }

  @Override
  public void unlock(UnlockRequest req, StreamObserver<UnlockResponse> obs) {
    AnswerRelay.future(obs, () -> kv.write(LogEntry.newBuilder().setKvDeleteRange(KvRequests.deleteRange(
        DeleteRangeRequest.newBuilder().setKey(req.getKey()).build())))
        .thenApply(r -> UnlockResponse.newBuilder().setHeader(headers.at(r.getIndex())).build()));
  }
}
