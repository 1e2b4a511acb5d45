package io.regent.server.ratis;

import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.retry.RequestTypeDependentRetryPolicy;
import org.apache.ratis.proto.RaftProtos.RaftClientRequestProto.TypeCase;
import org.apache.ratis.protocol.exceptions.AlreadyClosedException;
import org.apache.ratis.retry.ExceptionDependentRetry;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.util.TimeDuration;

/**
 * The retry policy of the Ratis clients that carry proposals: retry every {@link #SLEEP_MS} (a new leader,
 * a leader not ready yet), but never after the request has been pending for the proposal timeout.
 *
 * <p>Why a time bound: {@link RatisProposer} stops waiting after its timeout and answers UNAVAILABLE, but that
 * only completes a derived future; a retry count alone lets the Ratis client go on resending for minutes
 * (each attempt may wait the Ratis request timeout), so a keepalive's Confirm could still apply long after
 * its caller was told it failed. Ratis 3.3.0 checks the bound before each retry
 * ({@code RequestTypeDependentRetryPolicy}, from the request's creation time), so an entry is sent for the
 * last time before the timeout and its last attempt ends at most one Ratis request timeout later.
 *
 * <p>Why no retry after {@link AlreadyClosedException}: after a leader-not-ready reply Ratis sends the next
 * attempt to a random other peer, which may be the paused old leader (docs/ratis.md §10); {@link RatisProposer}
 * resends such a proposal itself, through a fresh client that starts at the leader this node follows.
 */
public final class ProposalRetries {
  /** Pause between attempts, ms. */
  static final long SLEEP_MS = 100;

  private ProposalRetries() {
  }

  /**
   * @param timeoutMs how long a proposal may be retried, ms (the proposal timeout), at least 1
   * @return a policy for write requests (proposals), reads and watches alike
   */
  public static RetryPolicy within(long timeoutMs) {
    TimeDuration timeout = TimeDuration.valueOf(timeoutMs, TimeUnit.MILLISECONDS);
    RetryPolicy sleep = RetryPolicies.retryForeverWithSleep(TimeDuration.valueOf(SLEEP_MS, TimeUnit.MILLISECONDS));
    RequestTypeDependentRetryPolicy.Builder b = RequestTypeDependentRetryPolicy.newBuilder();
    RetryPolicy policy = ExceptionDependentRetry.newBuilder().setDefaultPolicy(sleep)
        .setExceptionToPolicy(AlreadyClosedException.class, RetryPolicies.noRetry()).build();
    // WATCH too: a new Ratis client first sends a dummy watch request (OrderedAsync.newInstance) unless told not to
    // (RaftSetup does, a raft.* override may not), and a type without a policy here is retried for ever with no
    // sleep — a client aimed at a node that is gone then spins a core (seen: 11 601 attempts in 5 s from a client
    // left behind by a closed node)
    for (TypeCase type : new TypeCase[] {TypeCase.WRITE, TypeCase.READ, TypeCase.STALEREAD, TypeCase.WATCH}) {
      b.setRetryPolicy(type, policy).setTimeout(type, timeout);
    }
    return b.build();
  }
}
