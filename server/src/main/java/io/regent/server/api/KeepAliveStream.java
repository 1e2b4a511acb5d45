package io.regent.server.api;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.LeaseKeepAliveRequest;
import io.regent.api.v1.LeaseKeepAliveResponse;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One {@code Lease/KeepAliveStream} call: every request on it is one keepalive, answered on the same stream
 * with the unary KeepAlive's rule and verdict (a renewal is acknowledged only after a leadership confirmation
 * begun after it arrived, docs/architecture.md §3.3), the verdict as a code in the response instead of the
 * call's status, so that one lease's NOT_FOUND does not end the others' stream.
 *
 * <p>Flow control is manual: at most {@link #READ_AHEAD} requests are read before their answers are sent, so
 * a client that sends faster than the node confirms, or stops reading answers, is held back by HTTP/2 flow
 * control instead of filling this node's memory. Answers are sent as their rounds complete (on the thread
 * that completed them), one at a time; the stream is completed once the client has half-closed it and every
 * request read has been answered. A cancelled stream drops the answers still to come.
 *
 * <p>A stream follows the leader: once the leader this node's replies name (its id, the term, its published API
 * address) differs from the one named when the stream opened, the next request ends the stream with
 * UNAVAILABLE, whose trailers name the leader of now ({@link LeaderHeaders}); the client opens a new stream
 * where its routing now points (docs/api.md, "Leader-aware routing"). Without that, a client whose only traffic
 * is this stream would never hear of a new leader, nor of a leader whose address was not yet published when the
 * stream opened, and would renew through a follower's moved questions for good.
 */
final class KeepAliveStream implements StreamObserver<LeaseKeepAliveRequest> {
  /** Requests read ahead of their answers (a client with more leases waits for answers to send more). */
  static final int READ_AHEAD = 1024;

  private final ServerCallStreamObserver<LeaseKeepAliveResponse> out;
  private final Function<Long, CompletableFuture<LeaseKeepAliveResponse>> keepAlive;
  private final Supplier<NamedLeader> leader;
  private final NamedLeader opened;
  private int unanswered; // guarded by this
  private boolean halfClosed; // guarded by this
  private boolean ended; // guarded by this: completed, failed or cancelled

  /**
   * Takes over {@code out} (call before the service method returns: it turns off automatic flow control).
   *
   * @param keepAlive the unary KeepAlive of one lease id: its response, or its failure with the call's status
   * @param leader the leader as this node's replies name it now (null without Raft)
   */
  KeepAliveStream(StreamObserver<LeaseKeepAliveResponse> out,
                  Function<Long, CompletableFuture<LeaseKeepAliveResponse>> keepAlive, Supplier<NamedLeader> leader) {
    this.out = (ServerCallStreamObserver<LeaseKeepAliveResponse>) out;
    this.keepAlive = keepAlive;
    this.leader = leader;
    this.opened = leader.get();
    this.out.disableAutoRequest();
    this.out.setOnCancelHandler(() -> {
      synchronized (this) {
        ended = true;
      }
    });
    this.out.request(READ_AHEAD);
  }

  @Override
  public void onNext(LeaseKeepAliveRequest req) {
    NamedLeader now = leader.get();
    synchronized (this) {
      if (ended) {
        return;
      }
      if (opened != null && !opened.equals(now)) {
        ended = true;
        // the Java client re-sends the stream's unanswered keepalives at once on a new stream when the
        // description starts so (io.regent.client.KeepAliveStreams.LEADER_CHANGED): keep the two the same
        out.onError(Status.UNAVAILABLE.withDescription("the Raft leader changed since this stream opened (it named "
            + opened + "); open a new one").asRuntimeException());
        return;
      }
      unanswered++;
    }
    long id = req.getId();
    CompletableFuture<LeaseKeepAliveResponse> answer;
    try {
      answer = keepAlive.apply(id);
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    long tag = req.getTag();
    answer.whenComplete((r, err) -> send((err == null ? r.toBuilder() : refused(id, StatusCodes.toStatus(err)))
        .setTag(tag).build()));
  }

  private static LeaseKeepAliveResponse.Builder refused(long id, StatusRuntimeException e) {
    Status s = e.getStatus();
    return LeaseKeepAliveResponse.newBuilder().setId(id).setTtlMs(0).setCode(s.getCode().value())
        .setMessage(s.getDescription() == null ? s.getCode().name() : s.getDescription());
  }

  private synchronized void send(LeaseKeepAliveResponse r) {
    unanswered--;
    if (ended) {
      return;
    }
    out.onNext(r);
    if (halfClosed && unanswered == 0) {
      ended = true;
      out.onCompleted();
      return;
    }
    out.request(1);
  }

  @Override
  public synchronized void onError(Throwable t) {
    ended = true; // the client went away: nothing more can be sent
  }

  @Override
  public synchronized void onCompleted() {
    halfClosed = true;
    if (!ended && unanswered == 0) {
      ended = true;
      out.onCompleted();
    }
  }
}
