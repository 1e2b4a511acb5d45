package io.regent.client;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.api.v1.LeaseKeepAliveResponse;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one lease alive: renews every ttl/3 and tells the application to step down when it can no longer
 * be sure it holds the lease (docs/architecture.md §3.6).
 *
 * <p>Client-side time: the TTL is counted from the moment the last acknowledged request was <em>sent</em>,
 * on this process's monotonic clock. The server can only expire the lease a full TTL after that, measured
 * by a leader that confirmed itself after the request arrived, so stepping down after 2/3 ttl without an
 * acknowledgement leaves a margin of 1/3 ttl for clock-rate differences and delivery. An acknowledgement that
 * arrives after that deadline does not revive the lease: once {@link #isValid()} is false it stays false.
 *
 * <p>A keepalive that hangs or finds its node unreachable is retried on the client's next endpoint within the
 * time the lease has left ({@link RegentClient}), so a paused node does not cost the lease while others answer.
 *
 * <p><b>Suspension</b> (optional, {@link Options#suspendWhenInDoubt}; Chubby's "jeopardy", Curator's SUSPENDED;
 * docs/architecture.md §3.6): a failover can take longer than 2/3 of a short TTL (a frozen leader is noticed
 * only after an election timeout), although the new leader keeps every lease. With suspension, the keeper
 * that reaches the deadline only <em>suspends</em>: {@link #isValid()} is false and the application must stop
 * acting, but the keeper goes on renewing; a keepalive sent after that and acknowledged within 2/3 ttl of its
 * sending proves the lease never ended (an ended lease is never renewed: NOT_FOUND), so the holder
 * <em>resumes</em> with the same lease and tokens. It steps down, for good, on NOT_FOUND or once
 * ttl + grace has passed since the last acknowledged keepalive was sent. Without suspension (the default) the
 * deadline is the step-down.
 *
 * <p><b>Clock rate</b> (docs/architecture.md §3.6, "Clock bounds"): the 2/3-TTL rule holds only while this
 * process's clock runs at &ge; 2/3 of the leader's rate. Renewed keepalives carry the answering node's monotonic
 * clock; {@link ClockRate} compares this keeper's clock with it over a window of several seconds per node. When
 * this clock runs certainly slower than {@value ClockRate#SLOW_BELOW} of the node's, the keeper logs one line and
 * <em>steps down</em>, in suspend mode too although every keepalive is acknowledged: every later judgment of a
 * suspended keeper (resume within 2/3 ttl of a send, the grace) would be measured on the clock now known to run
 * slow, and a slow clock is a lasting state of the process (libfaketime, a throttled VM), not the passing
 * failover suspension is for. A fast clock is harmless (the holder stops early): one warning. The latest estimate
 * is {@link #clockRate()}.
 *
 * <p>The callbacks (suspended, resumed, step-down) run in the order of the events, one at a time, on the
 * keeper's scheduler; the step-down runs once and after it the keeper stops renewing. The clock, the scheduler
 * and a hook run before each renewal can be injected ({@link Options}) — for tests and for Jepsen's client
 * pause.
 */
public final class LeaseKeeper implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseKeeper.class);
  /** Shortest deadline given to one keepalive call, ms. */
  static final long MIN_CALL_MS = 50;
  /** Pause before retrying a failed keepalive, ms (at most ttl/10). */
  static final long RETRY_MS = 100;
  /** Shortest default grace of a suspended keeper, ms (the default is the longer of this and the TTL). */
  static final long MIN_DEFAULT_GRACE_MS = 10_000;

  /** Runs on the renewal thread before each keepalive is sent; may block (a simulated process pause). */
  @FunctionalInterface
  public interface PauseHook {
    /** Returns when the keepalive may be sent; an interrupt skips this renewal. */
    void beforeRenewal() throws InterruptedException;
  }

  /** What the keeper asks of the cluster (a {@link RegentClient}; a fake in unit tests). */
  interface Lessor {
    /** Renews and returns the answer; NOT_FOUND once the lease is gone, other codes are retried. */
    LeaseKeepAliveResponse keepAlive(long leaseId, long timeoutMs);

    /** Revokes; any status on failure. */
    void revoke(long leaseId);
  }

  /**
   * Injected collaborators. Defaults: {@link System#nanoTime}, a scheduler of two daemon threads of the
   * keeper's own (shut down with it), no hook.
   */
  public static final class Options {
    private LongSupplier clock = System::nanoTime;
    private ScheduledExecutorService scheduler;
    private PauseHook pauseHook = () -> { };
    Consumer<String> onSuspend; // package: a PartitionOwnership runs its own suspension before these
    Runnable onResume;
    private long graceMs = -1;

    private Options() {
    }

    /**
     * Suspends instead of stepping down at the 2/3-ttl deadline (see {@link LeaseKeeper}): {@code onSuspend} is
     * told why when the holder must stop acting, {@code onResume} when a renewal proved the lease is still held
     * (same lease, same fencing tokens); the step-down callback then comes only on NOT_FOUND or after the grace.
     */
    public Options suspendWhenInDoubt(Consumer<String> onSuspend, Runnable onResume) {
      this.onSuspend = Objects.requireNonNull(onSuspend, "onSuspend");
      this.onResume = Objects.requireNonNull(onResume, "onResume");
      return this;
    }

    /**
     * How long a suspended keeper goes on trying after a full TTL has passed since its last acknowledged
     * keepalive was sent, ms (&gt;= 0; default: the TTL, at least {@value #MIN_DEFAULT_GRACE_MS} ms). A
     * reachable cluster answers NOT_FOUND at once for a lease that ended, so the grace only bounds the wait
     * for an unreachable one.
     *
     * @throws IllegalArgumentException for a negative grace
     */
    public Options grace(long graceMs) {
      if (graceMs < 0) {
        throw new IllegalArgumentException("grace " + graceMs + " ms < 0");
      }
      this.graceMs = graceMs;
      return this;
    }

    /** The monotonic clock, ns (as {@link System#nanoTime}): send times and the step-down deadline. */
    public Options clock(LongSupplier nanoTime) {
      this.clock = Objects.requireNonNull(nanoTime, "clock");
      return this;
    }

    /**
     * Where renewals, the deadline watch and the step-down callback run; the caller owns it (the keeper only
     * cancels its own tasks). Give it at least two threads: a renewal blocks its thread for up to 1/3 ttl, and
     * the deadline must be watched meanwhile.
     */
    public Options scheduler(ScheduledExecutorService scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /** Passed through before each keepalive is sent (not before the deadline check, which keeps running). */
    public Options pauseHook(PauseHook hook) {
      this.pauseHook = Objects.requireNonNull(hook, "hook");
      return this;
    }
  }

  private final Lessor lessor;
  private final long leaseId;
  private final long ttlMs;
  private final LongSupplier clock;
  private final PauseHook pauseHook;
  private final Consumer<String> onStepDown;
  private final Consumer<String> onSuspend; // null: the deadline is the step-down
  private final Runnable onResume;
  private final long graceMs;
  private final ScheduledExecutorService scheduler;
  private final boolean ownsScheduler;
  private boolean down; // guarded by this
  private boolean suspended; // guarded by this
  private long lastAckSentNanos; // guarded by this
  private final ClockRate clockRate = new ClockRate(); // guarded by this
  private ClockRate.Estimate estimate; // guarded by this
  private boolean warnedFast; // guarded by this
  private CompletableFuture<Void> callbacks = CompletableFuture.completedFuture(null); // guarded by this
  private volatile Future<?> renewal;
  private volatile Future<?> watch;

  private LeaseKeeper(Lessor lessor, long leaseId, long ttlMs, long grantSentNanos, Options o,
                      Consumer<String> onStepDown) {
    this.lessor = lessor;
    this.leaseId = leaseId;
    this.ttlMs = ttlMs;
    this.clock = o.clock;
    this.pauseHook = o.pauseHook;
    this.onStepDown = onStepDown;
    this.onSuspend = o.onSuspend;
    this.onResume = o.onResume;
    this.graceMs = o.graceMs >= 0 ? o.graceMs : Math.max(ttlMs, MIN_DEFAULT_GRACE_MS);
    this.lastAckSentNanos = grantSentNanos;
    this.ownsScheduler = o.scheduler == null;
    // Two threads: the deadline is watched while a renewal blocks, so a slow renewal never delays the step-down.
    this.scheduler = ownsScheduler ? Executors.newScheduledThreadPool(2, r -> {
      Thread t = new Thread(r, "regent-lease-" + leaseId);
      t.setDaemon(true);
      return t;
    }) : o.scheduler;
  }

  /** Default options, to be changed with the {@link Options} setters. */
  public static Options options() {
    return new Options();
  }

  /**
   * Grants a lease of {@code ttlMs} and starts keeping it alive.
   *
   * @param onStepDown told why, once, when the lease is lost or can no longer be vouched for
   * @throws StatusRuntimeException INVALID_ARGUMENT for a TTL out of range, UNAVAILABLE without quorum,
   *     DEADLINE_EXCEEDED when no endpoint answered the grant within the call timeout (its re-sends carry one
   *     request id: at most one lease was granted, unrenewed it expires after its TTL; see {@link Leases#grant})
   */
  public static LeaseKeeper grant(RegentClient client, long ttlMs, Consumer<String> onStepDown) {
    return grant(client, ttlMs, onStepDown, options());
  }

  /** Like {@link #grant(RegentClient, long, Consumer)} with injected {@code options}. */
  public static LeaseKeeper grant(RegentClient client, long ttlMs, Consumer<String> onStepDown, Options options) {
    return grant(client, ttlMs, "", onStepDown, options);
  }

  /**
   * Like {@link #grant(RegentClient, long, Consumer)}, the lease granted in the cell of {@code tenant} (a name the
   * lease will hold will do): on a cluster of several cells a lease holds names of its own cell only
   * (docs/architecture.md §14, {@link Leases#grant(long, String)}).
   */
  public static LeaseKeeper grant(RegentClient client, long ttlMs, String tenant, Consumer<String> onStepDown) {
    return grant(client, ttlMs, tenant, onStepDown, options());
  }

  /** Like {@link #grant(RegentClient, long, String, Consumer)} with injected {@code options}. */
  public static LeaseKeeper grant(RegentClient client, long ttlMs, String tenant, Consumer<String> onStepDown,
                                  Options options) {
    long sent = options.clock.getAsLong();
    long id = client.leases().grant(ttlMs, tenant);
    return start(lessor(client), id, ttlMs, sent, options, onStepDown);
  }

  /**
   * Keeps alive a lease another call granted (a campaign with a TTL), counting its validity from
   * {@code sentNanos}, the {@link System#nanoTime()} at which that call was sent.
   */
  public static LeaseKeeper adopt(RegentClient client, long leaseId, long ttlMs, long sentNanos,
                                  Consumer<String> onStepDown) {
    return adopt(client, leaseId, ttlMs, sentNanos, onStepDown, options());
  }

  /** Like {@link #adopt(RegentClient, long, long, long, Consumer)} with injected {@code options}. */
  public static LeaseKeeper adopt(RegentClient client, long leaseId, long ttlMs, long sentNanos,
                                  Consumer<String> onStepDown, Options options) {
    return start(lessor(client), leaseId, ttlMs, sentNanos, options, onStepDown);
  }

  private static Lessor lessor(RegentClient client) {
    return new Lessor() {
      @Override
      public LeaseKeepAliveResponse keepAlive(long leaseId, long timeoutMs) {
        return client.leases().keepAliveAnswer(leaseId, timeoutMs);
      }

      @Override
      public void revoke(long leaseId) {
        client.leases().revoke(leaseId);
      }
    };
  }

  /** Starts keeping lease {@code leaseId} alive, granted by a request sent at {@code grantSentNanos}. */
  static LeaseKeeper start(Lessor lessor, long leaseId, long ttlMs, long grantSentNanos, Options options,
                           Consumer<String> onStepDown) {
    LeaseKeeper k = new LeaseKeeper(lessor, leaseId, ttlMs, grantSentNanos, options, onStepDown);
    // ttl/3 after the grant was sent, not after it returned: a slow grant (cold connection) eats validity.
    k.renewal = k.scheduler.schedule(k::renew,
        Math.max(0, grantSentNanos + TimeUnit.MILLISECONDS.toNanos(ttlMs / 3) - k.clock.getAsLong()),
        TimeUnit.NANOSECONDS);
    k.watch = k.scheduler.schedule(k::checkDeadline, Math.max(0, k.deadlineNanos() - k.clock.getAsLong()),
        TimeUnit.NANOSECONDS);
    return k;
  }

  /**
   * Sends one keepalive and schedules the next: ttl/3 after this one was sent when it is acknowledged, or
   * soon after a failure (no quorum, timeout), so a slow or failed renewal does not push the next one back.
   */
  private void renew() {
    try {
      pauseHook.beforeRenewal();
    } catch (InterruptedException e) {
      return; // closed while paused
    }
    long sent = clock.getAsLong();
    long callMs;
    synchronized (this) {
      if (down) {
        return;
      }
      // While suspended only an answer within 2/3 ttl of this send can resume the holder: it may take ttl/3.
      callMs = suspended ? ttlMs / 3 : TimeUnit.NANOSECONDS.toMillis(deadlineNanos() - sent);
    }
    long nextInMs;
    try {
      LeaseKeepAliveResponse answer = lessor.keepAlive(leaseId, Math.max(MIN_CALL_MS, callMs));
      long received = clock.getAsLong();
      if (!acknowledged(sent) || !clockRateHolds(answer, sent, received)) {
        return;
      }
      nextInMs = isSuspended() ? Math.min(RETRY_MS, ttlMs / 10)
          : ttlMs / 3 - TimeUnit.NANOSECONDS.toMillis(clock.getAsLong() - sent);
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        stepDown("lease " + leaseId + " expired or was revoked");
        return;
      }
      nextInMs = Math.min(RETRY_MS, ttlMs / 10);
    }
    synchronized (this) {
      if (!down) {
        renewal = scheduler.schedule(this::renew, Math.max(0, nextInMs), TimeUnit.MILLISECONDS);
      }
    }
  }

  /**
   * Counts an acknowledgement of a keepalive sent at {@code sent}. Without suspension, one that came after the
   * deadline steps the holder down. With it, one that came after its own send's 2/3-ttl deadline vouches for
   * nothing now and leaves the holder suspended (the lease was still held when the server answered, so the
   * keeper tries again); one in time resumes it. Whether renewing goes on.
   */
  private synchronized boolean acknowledged(long sent) {
    if (down) {
      return false;
    }
    long now = clock.getAsLong();
    if (onSuspend == null && now - deadlineNanos() >= 0) {
      // the holder was bound to stop at the deadline: an answer after it must not make it act again
      stepDown("lease " + leaseId + " renewed only after 2/3 of its " + ttlMs + " ms TTL had passed");
      return false;
    }
    if (now - (sent + validityNanos()) >= 0) {
      lastAckSentNanos = Math.max(lastAckSentNanos, sent);
      suspend("lease " + leaseId + " renewed only after 2/3 of its " + ttlMs + " ms TTL had passed");
      return true;
    }
    lastAckSentNanos = Math.max(lastAckSentNanos, sent);
    if (suspended) {
      suspended = false;
      callback(onResume);
    }
    return true;
  }

  /**
   * Adds the answering node's clock reading of a renewal sent at {@code sent} and answered at {@code received} to
   * the rate estimate; steps down when this keeper's clock runs certainly slower than
   * {@value ClockRate#SLOW_BELOW} of the node's, warns once when it runs certainly faster than
   * {@value ClockRate#FAST_ABOVE}. A node that sends no reading is not measured. Whether renewing goes on.
   */
  private synchronized boolean clockRateHolds(LeaseKeepAliveResponse answer, long sent, long received) {
    if (down) {
      return false;
    }
    if (answer.getNodeClockMs() == 0) {
      return true;
    }
    ClockRate.Estimate e = clockRate.add(answer.getNode(), answer.getNodeStartedMs(),
        new ClockRate.Sample(sent, received, answer.getNodeClockMs()));
    if (e == null) {
      return true;
    }
    estimate = e;
    if (e.slow()) {
      String why = describe(e) + ": lease " + leaseId + "'s holder stops acting; the 2/3-TTL rule assumes >= 2/3"
          + " (docs/architecture.md §3.6)";
      LOG.error(why);
      stepDown(why);
      return false;
    }
    if (e.fast() && !warnedFast) {
      warnedFast = true;
      LOG.warn("{}: harmless for lease {}, whose holder stops acting early", describe(e), leaseId);
    }
    return true;
  }

  private static String describe(ClockRate.Estimate e) {
    return String.format(Locale.ROOT, "client clock runs at %.2f of %s (%.2f to %.2f over %.1f s)", e.rate(),
        e.node().isEmpty() ? "the node's" : "node " + e.node() + "'s", e.low(), e.high(), e.spanMs() / 1000.0);
  }

  /**
   * At the deadline: steps down, or suspends, and steps down once ttl + grace have passed since the last
   * acknowledged keepalive was sent; otherwise watches again until the (moved) deadline.
   */
  private synchronized void checkDeadline() {
    if (down) {
      return;
    }
    long now = clock.getAsLong();
    long left = deadlineNanos() - now;
    if (left > 0) {
      watch = scheduler.schedule(this::checkDeadline, left, TimeUnit.NANOSECONDS);
      return;
    }
    if (onSuspend == null) {
      stepDown("lease " + leaseId + " not renewed for 2/3 of its " + ttlMs + " ms TTL");
      return;
    }
    long giveUpIn = lastAckSentNanos + TimeUnit.MILLISECONDS.toNanos(ttlMs + graceMs) - now;
    if (giveUpIn <= 0) {
      stepDown("lease " + leaseId + " not renewed within its " + ttlMs + " ms TTL and a grace of " + graceMs
          + " ms");
      return;
    }
    suspend("lease " + leaseId + " not renewed for 2/3 of its " + ttlMs + " ms TTL");
    // Whichever comes first: a resume moves the deadline (the watch then re-arms), or the grace ends.
    watch = scheduler.schedule(this::checkDeadline, Math.min(giveUpIn, TimeUnit.MILLISECONDS.toNanos(RETRY_MS)),
        TimeUnit.NANOSECONDS);
  }

  /** Marks the holder suspended and tells the application, unless it is already; caller holds the lock. */
  private void suspend(String reason) {
    if (!suspended) {
      suspended = true;
      callback(() -> onSuspend.accept(reason));
    }
  }

  private synchronized boolean isSuspended() {
    return suspended;
  }

  /** Runs {@code task} on the scheduler after every callback queued before it; caller holds the lock. */
  private void callback(Runnable task) {
    callbacks = callbacks.thenRunAsync(task, scheduler).exceptionally(e -> null);
  }

  private long validityNanos() {
    return TimeUnit.MILLISECONDS.toNanos(ttlMs * 2 / 3);
  }

  /** Stops renewing and tells the application why, once, on the scheduler. */
  private synchronized void stepDown(String reason) {
    if (down) {
      return;
    }
    down = true;
    suspended = false;
    cancelTasks(false);
    callback(() -> {
      try {
        onStepDown.accept(reason);
      } finally {
        if (ownsScheduler) {
          scheduler.shutdown();
        }
      }
    });
  }

  private void cancelTasks(boolean interrupt) {
    Future<?> r = renewal;
    Future<?> w = watch;
    if (r != null) {
      r.cancel(interrupt);
    }
    if (w != null) {
      w.cancel(interrupt);
    }
  }

  /**
   * Whether the holder may act now: renewed within 2/3 ttl (measured from send time), not suspended and not
   * lost. Without suspension, once false it stays false, even if a late acknowledgement arrives; with it, it
   * is true again after a resume. The first call that finds the deadline passed steps down (or suspends).
   */
  public synchronized boolean isValid() {
    if (down) {
      return false;
    }
    if (clock.getAsLong() - deadlineNanos() >= 0) {
      if (onSuspend == null) {
        stepDown("lease " + leaseId + " not renewed for 2/3 of its " + ttlMs + " ms TTL");
      } else {
        suspend("lease " + leaseId + " not renewed for 2/3 of its " + ttlMs + " ms TTL");
      }
      return false;
    }
    return !suspended;
  }

  /** The step-down deadline on the keeper's clock, ns: when the last acknowledged keepalive was sent + 2/3 ttl. */
  public synchronized long deadlineNanos() {
    return lastAckSentNanos + validityNanos();
  }

  /**
   * This keeper's clock rate against the node that answered its latest renewals ({@link ClockRate.Estimate}), or
   * null until renewals of one node span {@value ClockRate#MIN_SPAN_MS} ms of its time (or when the nodes send no
   * clock reading).
   */
  public synchronized ClockRate.Estimate clockRate() {
    return estimate;
  }

  /** The lease id (the log index of its grant). */
  public long leaseId() {
    return leaseId;
  }

  /** The lease TTL in ms. */
  public long ttlMs() {
    return ttlMs;
  }

  /**
   * Stops renewing without revoking and without telling the step-down callback: the lease expires on the
   * server one TTL after its last renewal. Idempotent.
   */
  public void stop() {
    synchronized (this) {
      down = true;
    }
    cancelTasks(true);
    if (ownsScheduler) {
      scheduler.shutdownNow();
    }
  }

  /**
   * Stops renewing and revokes the lease, freeing every name it holds.
   *
   * @throws StatusRuntimeException when the revoke was not acknowledged (NOT_FOUND: already gone; UNAVAILABLE,
   *     DEADLINE_EXCEEDED: unknown, the lease then expires on its own after its TTL)
   */
  public void revoke() {
    stop();
    lessor.revoke(leaseId);
  }

  /** Stops renewing without revoking: the lease was ended by another call (a resign that revoked it). */
  public void forget() {
    stop();
  }

  /** Stops renewing and revokes the lease (best effort), freeing every name it holds. */
  @Override
  public void close() {
    boolean wasUp;
    synchronized (this) {
      wasUp = !down;
    }
    stop();
    if (wasUp) {
      try {
        lessor.revoke(leaseId);
      } catch (StatusRuntimeException e) {
        // Already gone, or no quorum: the lease then expires on its own after its TTL.
      }
    }
  }
}
