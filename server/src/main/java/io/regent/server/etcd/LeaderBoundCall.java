package io.regent.server.etcd;

import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.Status;

/**
 * A stream opened with etcd's {@code hasleader} metadata, which {@link LeaderLoss} may end from its timer thread
 * while the stream's service is writing to it. gRPC's calls are not thread-safe, so writes and the close go through
 * this call's monitor, and whatever the service writes after the stream was ended is dropped, not thrown: the
 * service learns of the end as of a client's cancellation ({@link #listen}), on gRPC's own serialized listener.
 */
final class LeaderBoundCall<Q, R> extends ForwardingServerCall.SimpleForwardingServerCall<Q, R> {
  private final LeaderLoss streams;
  private boolean closed;
  private boolean endedForNoLeader;

  /** @param streams the watch that forgets this call once it is over, however it ended */
  LeaderBoundCall(ServerCall<Q, R> call, LeaderLoss streams) {
    super(call);
    this.streams = streams;
  }

  /**
   * Ends the stream with UNAVAILABLE "etcdserver: no leader" ({@link LeaderRequired#NO_LEADER}); whether it was
   * still open.
   */
  synchronized boolean endForNoLeader() {
    if (closed) {
      return false;
    }
    closed = true;
    endedForNoLeader = true;
    super.close(Status.UNAVAILABLE.withDescription(LeaderRequired.NO_LEADER), new Metadata());
    return true;
  }

  private synchronized boolean endedForNoLeader() {
    return endedForNoLeader;
  }

  @Override
  public synchronized void sendHeaders(Metadata headers) {
    if (!closed) {
      super.sendHeaders(headers);
    }
  }

  @Override
  public synchronized void sendMessage(R message) {
    if (!closed) {
      super.sendMessage(message);
    }
  }

  @Override
  public synchronized void close(Status status, Metadata trailers) {
    if (!closed) {
      closed = true;
      super.close(status, trailers);
    }
  }

  /**
   * {@code listener}, told of a stream ended for want of a leader as of a cancelled one (gRPC reports the end of a
   * call the server closed as a completion), so the service releases what it holds: a Watch stream its watchers,
   * a LeaseKeepAlive stream its pending renewals.
   */
  ServerCall.Listener<Q> listen(ServerCall.Listener<Q> listener) {
    return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {
      @Override
      public void onComplete() {
        streams.remove(LeaderBoundCall.this);
        if (endedForNoLeader()) {
          super.onCancel();
        } else {
          super.onComplete();
        }
      }

      @Override
      public void onCancel() {
        streams.remove(LeaderBoundCall.this);
        super.onCancel();
      }
    };
  }
}
