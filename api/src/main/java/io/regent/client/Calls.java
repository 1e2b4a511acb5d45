package io.regent.client;

import com.google.common.util.concurrent.ListenableFuture;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The one place of a {@link RegentClient}'s failover and retry rule: which call may be re-sent, where, and
 * within which deadline — docs/api.md's table "safe to re-send after a timeout" (section "Request ids"). The
 * client moves on to the next endpoint when one is unreachable or hangs (docs/architecture.md §7):
 *
 * <ul>
 *   <li>UNAVAILABLE (refused, reset, or a transport that the channel keepalive found dead): every call moves
 *       on to the next endpoint.
 *   <li>DEADLINE_EXCEEDED (a paused or silently cut-off node): calls that are safe to repeat are retried on the
 *       next endpoint, each attempt with at most half of what is left of the call's deadline (and at most the
 *       attempt timeout). Keepalives are hedged instead: after a quarter of their budget ({@link #hedgeAfterMs})
 *       without an answer the next endpoint gets the same keepalive, the first keeping its deadline, and the
 *       first answer wins — a hung node costs a lease only part of its budget, a slow one nothing. Membership
 *       changes are <em>not</em> re-sent (Ratis's own configuration change has no request id): the caller gets
 *       the DEADLINE_EXCEEDED and the next call starts at the next endpoint.
 *   <li>No answer yet from the leader's endpoint after {@link #LEADER_QUIET_MS}: the call waits on, but the leader is
 *       suspect and the calls that follow start at the current endpoint.
 * </ul>
 *
 * <p>Every mutating call builds its request once, with a request id of its own ({@link RequestIds}), before the
 * first send: each re-send carries the same bytes, so a call that applied before its answer was lost is answered
 * from the server's record of it (the first lease, the first token) and applied once; a re-send also tells the node
 * the highest applied index seen before the first send ({@link SeenIndex}), so that a record pruned meanwhile is
 * refused rather than applied again. A campaign with a lease is the exception the server makes: each send is a new
 * attempt there (docs/api.md "Attempts"), and its id changes nothing. Which call takes which way:
 *
 * <ul>
 *   <li>{@link #call(Function)} — re-sent after UNAVAILABLE and DEADLINE_EXCEEDED, starting at the leader:
 *       {@code grant}, {@code revoke}, {@code timeToLive}, {@code list} of {@link Leases}; {@code campaignWithTtl},
 *       {@code tryCampaign}, {@code proclaim}, {@code resign}, {@code freshToken}, linearizable {@code leader} of
 *       {@link Elections}; {@code memberList} of {@link Cluster}; every {@link GroupClient} call.
 *   <li>{@link #call(long, boolean, boolean, Function)} with {@code toLeader} false — re-sent likewise,
 *       starting at the current endpoint: {@link Cluster#status}, serializable {@link Elections#leader}.
 *   <li>the same with {@code retryOnTimeout} false and the campaign's whole wait as the budget —
 *       {@link Elections#campaign} and {@link Elections#campaignAll}: moved on from a dead node only, never for
 *       taking long.
 *   <li>{@link #callOnce} — moved on only from an unreachable endpoint: {@code memberAdd}, {@code memberPromote},
 *       {@code memberRemove}, {@code transferLeadership} of {@link Cluster}.
 *   <li>{@link #hedged} and {@link #hedgedAsync} — keepalives ({@code keepAlive}, {@code keepAliveAsync},
 *       {@code keepAliveMany} of {@link Leases}), see {@link HedgedCall}.
 * </ul>
 *
 * <p>A deadline in the calling thread's gRPC {@link Context} bounds every attempt too; the passes over the
 * endpoints and the jittered pauses between them follow {@link RetryPolicy}. Thread-safe.
 */
final class Calls {
  /** Shortest deadline of one attempt when a call is retried on another endpoint, ms. */
  static final long MIN_ATTEMPT_MS = 50;
  /**
   * How long a call sent to the leader's endpoint may go unanswered before the leader is suspect and the calls
   * that follow start at the current endpoint instead, ms (docs/api.md "Leader routing"). A leader answers a write
   * in milliseconds and a loaded one within hundreds; a frozen one (SIGSTOP, a long GC pause) never, and every call
   * routed to it waited out its attempt timeout (5 s) although a new leader was ready ~1 s after the freeze
   * (jepsen/run frozen: writes sent 3 s after the freeze answered 3.3-4.0 s later, in 10 of 10 rounds). The call
   * itself keeps waiting: a slow leader still answers it, and its answer clears the suspicion. Not for the calls
   * that may take long by design (blocking campaigns, membership changes: those not re-sent after a timeout).
   */
  static final long LEADER_QUIET_MS = 1_000;

  private final Endpoints endpoints;
  private final long callTimeoutMs;
  private final long attemptTimeoutMs;
  private final RetryPolicy retry;
  /** Fires the per-attempt context deadlines. */
  private final ScheduledExecutorService deadlines = deadlineTimer();

  /**
   * @param callTimeoutMs budget of {@link #call(Function)}
   * @param attemptTimeoutMs longest one attempt of a call that is re-sent after a timeout
   */
  Calls(Endpoints endpoints, long callTimeoutMs, long attemptTimeoutMs, RetryPolicy retry) {
    this.endpoints = endpoints;
    this.callTimeoutMs = callTimeoutMs;
    this.attemptTimeoutMs = attemptTimeoutMs;
    this.retry = retry;
  }

  /**
   * One daemon thread firing deadlines; a cancelled one leaves its queue at once (a keepalive answered in time
   * cancels its deadline: thousands a second with many leases).
   */
  private static ScheduledExecutorService deadlineTimer() {
    ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> {
      Thread th = new Thread(r, "regent-client-deadlines");
      th.setDaemon(true);
      return th;
    });
    t.setRemoveOnCancelPolicy(true);
    return t;
  }

  /** The timer that fires deadlines (also of the keepalive streams' renewals). */
  ScheduledExecutorService timer() {
    return deadlines;
  }

  /** The budget of {@link #call(Function)}, ms ({@link RegentClientBuilder#callTimeout}). */
  long callTimeoutMs() {
    return callTimeoutMs;
  }

  /**
   * Runs a renewal within {@code budgetMs} (and the caller's context deadline), hedged: after
   * {@link #hedgeAfterMs} without an answer, or at once when the endpoint is unreachable, the next endpoint
   * gets it too, the first attempt keeping its deadline ({@link HedgedCall}).
   */
  <T> T hedged(long budgetMs, BiFunction<ManagedChannel, Deadline, ListenableFuture<T>> rpc) {
    return HedgedCall.run(endpoints.channels(), endpoints.start(true), budget(budgetMs),
        hedgeAfterMs(budgetMs, attemptTimeoutMs), deadlines, rpc, endpoints::answered, endpoints::hedgeFailed);
  }

  /** {@link #hedged} without blocking: the future completes as it would return or throw. */
  <T> CompletableFuture<T> hedgedAsync(long budgetMs,
                                       BiFunction<ManagedChannel, Deadline, ListenableFuture<T>> rpc) {
    return HedgedCall.start(endpoints.channels(), endpoints.start(true), budget(budgetMs),
        hedgeAfterMs(budgetMs, attemptTimeoutMs), deadlines, rpc, endpoints::answered, endpoints::hedgeFailed);
  }

  /** {@code budgetMs} from now, or the calling thread's gRPC context deadline when that comes first. */
  private static Deadline budget(long budgetMs) {
    Deadline overall = Deadline.after(Math.max(1, budgetMs), TimeUnit.MILLISECONDS);
    Deadline outer = Context.current().getDeadline();
    return outer != null && outer.isBefore(overall) ? outer : overall;
  }

  /**
   * How long a renewal waits for its endpoint before the next one gets it too: a quarter of the budget (at
   * least {@link #MIN_ATTEMPT_MS}, at most {@code attemptTimeoutMs}). A keepalive sent just after its node went
   * silent has about ttl/3 left (a 2/3-ttl validity, renewed every ttl/3); the next node needs one leadership
   * confirmation to answer, which a loaded cluster may take hundreds of ms over, so it gets three quarters of
   * that (at half, a Jepsen client-isolate run saw an isolated holder step down: jepsen/README.md).
   */
  static long hedgeAfterMs(long budgetMs, long attemptTimeoutMs) {
    return Math.min(attemptTimeoutMs, Math.max(MIN_ATTEMPT_MS, budgetMs / 4));
  }

  /**
   * Runs a call that is safe to repeat, within {@link RegentClientBuilder#callTimeout} (see the class comment);
   * also for the other clients of this package, e.g. {@link GroupClient}.
   */
  <T> T call(Function<ManagedChannel, T> rpc) {
    return call(callTimeoutMs, true, true, rpc);
  }

  /** Runs a call that must not be re-sent after a timeout: it moves on only from an unreachable endpoint. */
  <T> T callOnce(long budgetMs, Function<ManagedChannel, T> rpc) {
    return call(budgetMs, false, true, rpc);
  }

  /**
   * Runs {@code rpc} from the current endpoint (or the leader's) on: the next endpoint is tried after
   * UNAVAILABLE, and after DEADLINE_EXCEEDED when {@code retryOnTimeout}, with passes and pauses of the
   * {@link RetryPolicy}, until {@code budgetMs} (or the caller's context deadline) has passed.
   *
   * @param retryOnTimeout whether the call is safe to repeat after a timeout; each attempt then gets half of
   *     what is left of the budget (at least {@link #MIN_ATTEMPT_MS}, at most the attempt timeout)
   * @param toLeader whether the first attempt goes to the Raft leader's endpoint when it is known (writes and
   *     linearizable reads); the others follow in the endpoints' order from there
   */
  <T> T call(long budgetMs, boolean retryOnTimeout, boolean toLeader, Function<ManagedChannel, T> rpc) {
    Deadline overall = Deadline.after(Math.max(1, budgetMs), TimeUnit.MILLISECONDS);
    Deadline outer = Context.current().getDeadline();
    if (outer != null && outer.isBefore(overall)) {
      overall = outer;
    }
    StatusRuntimeException last = null;
    long seen = endpoints.seenIndex(); // before the first send: what a re-send tells the node (SeenIndex)
    int n = endpoints.channels().size(); // endpoints learnt during the call are tried by the next one
    for (int pass = 0; pass < retry.rounds(); pass++) {
      for (int i = 0; i < n; i++) {
        int idx = pass == 0 && i == 0 ? endpoints.start(toLeader) : endpoints.currentEndpoint();
        // read after idx: an index the routing names is in it already
        List<ManagedChannel> chs = endpoints.channels();
        Deadline attempt = overall;
        long leftMs = overall.timeRemaining(TimeUnit.MILLISECONDS);
        boolean lastTry = pass == retry.rounds() - 1 && i == n - 1;
        if (retryOnTimeout && !lastTry && leftMs > 2 * MIN_ATTEMPT_MS) {
          attempt = Deadline.after(Math.min(attemptTimeoutMs, Math.max(MIN_ATTEMPT_MS, leftMs / 2)),
              TimeUnit.MILLISECONDS);
        }
        // only calls that answer promptly: a blocking campaign waits at the leader for as long as its name is held
        ScheduledFuture<?> quiet = retryOnTimeout && toLeader && idx == endpoints.leaderIndex()
            ? deadlines.schedule(() -> endpoints.quiet(idx), LEADER_QUIET_MS, TimeUnit.MILLISECONDS) : null;
        try {
          Long resend = pass == 0 && i == 0 ? null : seen;
          return attempt(attempt, resend, () -> rpc.apply(chs.get(idx)));
        } catch (StatusRuntimeException e) {
          Status.Code code = e.getStatus().getCode();
          boolean hung = code == Status.Code.DEADLINE_EXCEEDED;
          if (code != Status.Code.UNAVAILABLE && !hung) {
            throw e;
          }
          // The next call starts elsewhere, even when this one is not re-sent.
          endpoints.failed(idx, chs.size(), NodeRefusal.answeredUnavailable(e));
          if ((hung && !retryOnTimeout) || overall.isExpired()) {
            throw e;
          }
          last = e;
        } finally {
          if (quiet != null) {
            quiet.cancel(false);
          }
        }
      }
      if (pass < retry.rounds() - 1) {
        pause(Math.min(retry.backoffMs(pass), overall.timeRemaining(TimeUnit.MILLISECONDS)));
      }
    }
    throw last;
  }

  /**
   * Runs one attempt with {@code deadline} in its gRPC context (gRPC takes the earlier of it and the stub's) and,
   * for a re-send, the index seen before the first send ({@link SeenIndex#RESEND}; null for the first send).
   */
  private <T> T attempt(Deadline deadline, Long resend, Supplier<T> body) {
    Context.CancellableContext ctx = Context.current().withValue(SeenIndex.RESEND, resend)
        .withDeadline(deadline, deadlines);
    try {
      return ctx.call(body::get);
    } catch (StatusRuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw Status.INTERNAL.withDescription(e.toString()).withCause(e).asRuntimeException();
    } finally {
      ctx.cancel(null);
    }
  }

  private static void pause(long ms) {
    if (ms <= 0) {
      return;
    }
    try {
      Thread.sleep(ms); // a backoff between passes over the endpoints, not a synchronisation
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Status.CANCELLED.withDescription("interrupted").withCause(e).asRuntimeException();
    }
  }

  /** Stops the deadline timer (after the channels closed: nothing is in flight any more). */
  void close() {
    deadlines.shutdownNow();
  }
}
