package io.regent.client;

import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import com.google.common.util.concurrent.SettableFuture;
import io.grpc.Deadline;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.regent.api.v1.LeaseGrpc;
import io.regent.api.v1.LeaseKeepAliveRequest;
import io.regent.api.v1.LeaseKeepAliveResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A client's keepalives over one {@code Lease/KeepAliveStream} per endpoint (etcd's LeaseKeepAlive), opened on
 * first use: every keepalive of the client to that endpoint is one message on the stream instead of one call,
 * so it costs no HTTP/2 stream, headers or call set-up of its own (docs/api.md, "Keepalives").
 *
 * <p>Each keepalive is a future with the unary KeepAlive's outcome: the response with a TTL, or the status the
 * unary call would have failed with (from the response's code), or DEADLINE_EXCEEDED at its deadline, or the
 * stream's own failure (UNAVAILABLE when the node went away or its leader changed, whose trailers tell the
 * routing the new leader). A failed stream is dropped and the next keepalive opens a new one. Answers are
 * matched to requests by a tag, never by lease id, so an answer vouches only for the request it answers (a
 * renewal counts from the sending of its own request: docs/architecture.md §3.6).
 *
 * <p>A node that does not serve the stream (UNIMPLEMENTED: an older version during a rolling upgrade) gets
 * unary keepalives from then on. Thread-safe.
 */
final class KeepAliveStreams {
  /**
   * How a node's stream ends when the leader it named at the stream's start changed, its address included (the
   * server's {@code KeepAliveStream}): the keepalives it left unanswered were not renewed there, and are sent
   * again at once on a new stream, which names the leader as it is now. Without this, a client of one endpoint
   * saw a keepalive fail UNAVAILABLE whenever the leader's API address was published after its stream opened, as
   * on a fresh cluster.
   */
  static final String LEADER_CHANGED = "the Raft leader changed since this stream opened";

  private final ScheduledExecutorService timer;
  private final Map<ManagedChannel, Stream> open = new ConcurrentHashMap<>();
  private final Set<ManagedChannel> unary = ConcurrentHashMap.newKeySet();

  /** @param timer fires the keepalives' deadlines */
  KeepAliveStreams(ScheduledExecutorService timer) {
    this.timer = timer;
  }

  /** Renews lease {@code id} through {@code channel} by {@code deadline}. */
  ListenableFuture<LeaseKeepAliveResponse> keepAlive(ManagedChannel channel, long id, Deadline deadline) {
    if (unary.contains(channel)) {
      return unaryKeepAlive(channel, id, deadline);
    }
    while (true) {
      Stream s = open.computeIfAbsent(channel, Stream::new);
      ListenableFuture<LeaseKeepAliveResponse> f = s.send(id, deadline);
      if (f != null) {
        return f;
      }
      open.remove(channel, s); // it failed between lookup and send
    }
  }

  private static ListenableFuture<LeaseKeepAliveResponse> unaryKeepAlive(ManagedChannel ch, long id, Deadline d) {
    return LeaseGrpc.newFutureStub(ch).withDeadline(d).keepAlive(LeaseKeepAliveRequest.newBuilder().setId(id).build());
  }

  /** One open stream and the keepalives waiting for its answers. */
  private final class Stream implements ClientResponseObserver<LeaseKeepAliveRequest, LeaseKeepAliveResponse> {
    private final ManagedChannel channel;
    private final Map<Long, Waiting> waiting = new HashMap<>(); // guarded by this, by tag
    private ClientCallStreamObserver<LeaseKeepAliveRequest> requests; // guarded by this
    private long nextTag; // guarded by this
    private boolean failed; // guarded by this

    private record Waiting(long id, Deadline deadline, SettableFuture<LeaseKeepAliveResponse> answer,
                           ScheduledFuture<?> timeout) {
    }

    Stream(ManagedChannel channel) {
      this.channel = channel;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<LeaseKeepAliveRequest> requests) {
      this.requests = requests; // called by the first send, within its lock
    }

    /** Sends one keepalive; null when the stream has failed already (the caller opens another). */
    synchronized ListenableFuture<LeaseKeepAliveResponse> send(long id, Deadline deadline) {
      if (requests == null) {
        // Opened here, not in the constructor: the map's computeIfAbsent must not see a failure's removal.
        LeaseGrpc.newStub(channel).keepAliveStream(this);
      }
      if (failed) {
        return null;
      }
      long tag = nextTag++;
      SettableFuture<LeaseKeepAliveResponse> answer = SettableFuture.create();
      ScheduledFuture<?> timeout = timer.schedule(() -> expire(tag),
          Math.max(0, deadline.timeRemaining(TimeUnit.NANOSECONDS)), TimeUnit.NANOSECONDS);
      waiting.put(tag, new Waiting(id, deadline, answer, timeout));
      // A keepalive given up on (a hedge answered first, or its deadline) no longer needs its slot.
      answer.addListener(() -> forget(tag, answer), MoreExecutors.directExecutor());
      requests.onNext(LeaseKeepAliveRequest.newBuilder().setId(id).setTag(tag).build());
      return answer;
    }

    private void expire(long tag) {
      Waiting w;
      synchronized (this) {
        w = waiting.remove(tag);
      }
      if (w != null) {
        w.answer.setException(Status.DEADLINE_EXCEEDED
            .withDescription("keepalive of lease " + w.id + " not answered in time on its stream").asRuntimeException());
      }
    }

    private void forget(long tag, SettableFuture<LeaseKeepAliveResponse> answer) {
      if (answer.isCancelled()) {
        Waiting w;
        synchronized (this) {
          w = waiting.remove(tag);
        }
        if (w != null) {
          w.timeout.cancel(false);
        }
      }
    }

    @Override
    public void onNext(LeaseKeepAliveResponse r) {
      Waiting w;
      synchronized (this) {
        w = waiting.remove(r.getTag());
      }
      if (w == null) {
        return; // given up on already
      }
      w.timeout.cancel(false);
      if (r.getCode() == Status.Code.OK.value()) {
        w.answer.set(r);
      } else {
        w.answer.setException(NodeRefusal.inBand(r.getCode(), r.getMessage()));
      }
    }

    @Override
    public void onError(Throwable t) {
      end(Status.fromThrowable(t));
    }

    @Override
    public void onCompleted() {
      end(Status.UNAVAILABLE.withDescription("keepalive stream ended by the node"));
    }

    /**
     * Fails every waiting keepalive with the stream's status; re-sends them as unary calls if the node lacks
     * streams, and on a new stream if the node ended this one for a leader change ({@link #LEADER_CHANGED}).
     */
    private void end(Status status) {
      List<Waiting> left;
      synchronized (this) {
        failed = true;
        left = new ArrayList<>(waiting.values());
        waiting.clear();
      }
      open.remove(channel, this);
      boolean unimplemented = status.getCode() == Status.Code.UNIMPLEMENTED;
      if (unimplemented) {
        unary.add(channel);
      }
      boolean rotated = status.getCode() == Status.Code.UNAVAILABLE && status.getDescription() != null
          && status.getDescription().startsWith(LEADER_CHANGED);
      for (Waiting w : left) {
        w.timeout.cancel(false);
        if (unimplemented) {
          w.answer.setFuture(unaryKeepAlive(channel, w.id, w.deadline));
        } else if (rotated) {
          w.answer.setFuture(keepAlive(channel, w.id, w.deadline));
        } else {
          w.answer.setException(status.asRuntimeException());
        }
      }
    }
  }
}
