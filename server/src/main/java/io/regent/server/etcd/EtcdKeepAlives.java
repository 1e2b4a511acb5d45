package io.regent.server.etcd;

import io.etcd.jetcd.api.LeaseKeepAliveRequest;
import io.etcd.jetcd.api.LeaseKeepAliveResponse;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;

/**
 * One etcd LeaseKeepAlive stream: each request renews its lease through Regent's unary KeepAlive, and its answer
 * goes back on the stream as soon as it comes, so answers may overtake one another (etcd's clients match them by
 * lease id). A lease that is gone is answered with TTL 0, as etcd answers; any other failure (no leader, the node
 * overloaded) ends the stream with its status, and etcd's clients open a new one. Writes to the stream are
 * serialized here: gRPC's observers are not thread-safe, and answers arrive on the channel's threads.
 */
final class EtcdKeepAlives implements StreamObserver<LeaseKeepAliveRequest> {
  private final StreamObserver<LeaseKeepAliveResponse> out;
  private final Upstream upstream;
  private final Headers headers;
  private int inFlight;
  private boolean halfClosed;
  private boolean ended;

  EtcdKeepAlives(StreamObserver<LeaseKeepAliveResponse> out, Upstream upstream, Headers headers) {
    this.out = out;
    this.upstream = upstream;
    this.headers = headers;
  }

  @Override
  public void onNext(LeaseKeepAliveRequest req) {
    long id = req.getID();
    synchronized (this) {
      if (ended) {
        return;
      }
      inFlight++;
    }
    StreamObserver<io.regent.api.v1.LeaseKeepAliveResponse> renewal = new StreamObserver<>() {
      @Override
      public void onNext(io.regent.api.v1.LeaseKeepAliveResponse r) {
        answered(id, EtcdLeaseService.seconds(r.getTtlMs()), null);
      }

      @Override
      public void onError(Throwable t) {
        Status s = Status.fromThrowable(t);
        answered(id, 0, s.getCode() == Status.Code.NOT_FOUND ? null : s);
      }

      @Override
      public void onCompleted() {
      }
    };
    upstream.lease().keepAlive(io.regent.api.v1.LeaseKeepAliveRequest.newBuilder().setId(id).build(), renewal);
  }

  private synchronized void answered(long id, long ttlS, Status failure) {
    inFlight--;
    if (ended) {
      return;
    }
    if (failure != null) {
      ended = true;
      out.onError(failure.asRuntimeException());
      return;
    }
    out.onNext(LeaseKeepAliveResponse.newBuilder().setHeader(headers.at(0)).setID(id).setTTL(ttlS).build());
    if (halfClosed && inFlight == 0) {
      ended = true;
      out.onCompleted();
    }
  }

  @Override
  public synchronized void onError(Throwable t) {
    ended = true; // the client went away: its pending renewals are cancelled with its call's context
  }

  @Override
  public synchronized void onCompleted() {
    halfClosed = true;
    if (!ended && inFlight == 0) {
      ended = true;
      out.onCompleted();
    }
  }
}
