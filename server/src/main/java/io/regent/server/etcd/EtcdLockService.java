package io.regent.server.etcd;

import io.etcd.jetcd.api.lock.LockGrpc;
import io.etcd.jetcd.api.lock.LockRequest;
import io.etcd.jetcd.api.lock.LockResponse;
import io.etcd.jetcd.api.lock.UnlockRequest;
import io.etcd.jetcd.api.lock.UnlockResponse;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.LeaderRequest;
import io.regent.api.v1.LeaderResponse;

/**
 * etcd's {@code v3lockpb.Lock} service on Regent's locks. Lock waits for the lock and answers with the owner's key
 * {@code NAME/LEASE} ({@link EtcdKeys}); the header's {@code revision} is the fencing token, which etcd's users
 * would otherwise read as the key's create revision. Unlock takes that key: it releases the lock when the key's
 * lease owns it, and otherwise does nothing and succeeds, as deleting a key that is gone does in etcd.
 */
final class EtcdLockService extends LockGrpc.LockImplBase {
  private final Headers headers;

  EtcdLockService(Headers headers) {
    this.headers = headers;
  }

  @Override
  public void lock(LockRequest req, StreamObserver<LockResponse> obs) {
    String name = EtcdKeys.name(req.getName());
    Upstream.current().lock().lock(io.regent.api.v1.LockRequest.newBuilder().setName(name).setLease(req.getLease())
        .build(), AnswerRelay.unary(obs, r -> LockResponse.newBuilder().setHeader(headers.at(r.getKey().getToken()))
            .setKey(EtcdKeys.key(name, r.getKey().getLease())).build()));
  }

  @Override
  public void unlock(UnlockRequest req, StreamObserver<UnlockResponse> obs) {
    EtcdKeys.Parsed key;
    try {
      key = EtcdKeys.parse(req.getKey());
    } catch (RuntimeException e) {
      obs.onError(e);
      return;
    }
    Upstream up = Upstream.current();
    Context call = Context.current();
    UnlockResponse gone = UnlockResponse.newBuilder().setHeader(headers.at(0)).build();
    // etcd's key carries no token: the owner's comes from a read, and a refusal of the release means the owner
    // changed since, which etcd would answer as a delete of a key that is gone
    up.election().leader(LeaderRequest.newBuilder().setName(key.name()).build(), new StreamObserver<>() {
      @Override
      public void onNext(LeaderResponse r) {
        if (r.getLeader().getLease() != key.lease()) {
          obs.onNext(gone);
          obs.onCompleted();
          return;
        }
        call.run(() -> up.lock().unlock(io.regent.api.v1.UnlockRequest.newBuilder().setKey(r.getLeader()).build(),
            AnswerRelay.unary(obs, u -> UnlockResponse.newBuilder().setHeader(headers.at(u.getIndex())).build(),
                s -> s.getCode() == Status.Code.FAILED_PRECONDITION ? gone : null, s -> s)));
      }

      @Override
      public void onError(Throwable t) {
        if (Status.fromThrowable(t).getCode() == Status.Code.NOT_FOUND) { // nobody holds the lock
          obs.onNext(gone);
          obs.onCompleted();
          return;
        }
        obs.onError(t);
      }

      @Override
      public void onCompleted() {
      }
    });
  }
}
