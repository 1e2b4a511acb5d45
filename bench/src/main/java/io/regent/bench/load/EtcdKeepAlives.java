package io.regent.bench.load;

import io.etcd.jetcd.api.LeaseGrpc;
import io.etcd.jetcd.api.LeaseKeepAliveRequest;
import io.etcd.jetcd.api.LeaseKeepAliveResponse;
import io.grpc.stub.StreamObserver;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;

/**
 * One etcd LeaseKeepAlive stream per client, as etcd's own clients keep it. etcd answers each request on
 * the stream with the lease's remaining TTL (0 when the lease is gone); answers are matched by lease id.
 */
final class EtcdKeepAlives implements AutoCloseable {
  private final LeaseGrpc.LeaseStub stub;
  private final Map<Long, Queue<CompletableFuture<Boolean>>> pending = new HashMap<>();
  private StreamObserver<LeaseKeepAliveRequest> stream;

  EtcdKeepAlives(LeaseGrpc.LeaseStub stub) {
    this.stub = stub;
  }

  synchronized CompletableFuture<Boolean> send(LeaseKeepAliveRequest req) {
    CompletableFuture<Boolean> f = new CompletableFuture<>();
    pending.computeIfAbsent(req.getID(), id -> new ArrayDeque<>()).add(f);
    if (stream == null) {
      stream = stub.leaseKeepAlive(new StreamObserver<>() {
        @Override
        public void onNext(LeaseKeepAliveResponse r) {
          CompletableFuture<Boolean> done = take(r.getID());
          if (done != null) {
            done.complete(r.getTTL() > 0);
          }
        }

        @Override
        public void onError(Throwable t) {
          failAll(t);
        }

        @Override
        public void onCompleted() {
          failAll(new IllegalStateException("keepalive stream closed by etcd"));
        }
      });
    }
    stream.onNext(req);
    return f;
  }

  private synchronized CompletableFuture<Boolean> take(long id) {
    Queue<CompletableFuture<Boolean>> q = pending.get(id);
    CompletableFuture<Boolean> f = q == null ? null : q.poll();
    if (q != null && q.isEmpty()) {
      pending.remove(id);
    }
    return f;
  }

  private synchronized void failAll(Throwable t) {
    pending.values().forEach(q -> q.forEach(f -> f.completeExceptionally(t)));
    pending.clear();
    stream = null;
  }

  @Override
  public synchronized void close() {
    if (stream != null) {
      try {
        stream.onCompleted();
      } catch (RuntimeException ignored) {
        // closing anyway
      }
      stream = null;
    }
  }
}
