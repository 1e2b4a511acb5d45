package io.regent.client;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Keeps one lease alive: renews every ttl/3 and tells the application to step down when it can no longer
 * be sure it holds the lease (docs/architecture.md §3.6).
 *
 * <p>Client-side time: the TTL is counted from the moment the last acknowledged request was <em>sent</em>,
 * on this process's monotonic clock. The server can only expire the lease a full TTL after that, measured
 * by a leader that confirmed itself after the request arrived, so stepping down after 2/3 ttl without an
 * acknowledgement leaves a margin of 1/3 ttl for clock-rate differences and delivery.
 *
 * <p>The step-down callback runs once, on one of the keeper's threads: after it the keeper stops renewing.
 */
public final class LeaseKeeper implements AutoCloseable {
  /** Shortest deadline given to one keepalive call, ms. */
  static final long MIN_CALL_MS = 50;
  /** Pause before retrying a failed keepalive, ms (at most ttl/10). */
  static final long RETRY_MS = 100;

  private final RegentClient client;
  private final long leaseId;
  private final long ttlMs;
  private final LongSupplier nanoClock;
  private final Consumer<String> onStepDown;
  private final ScheduledExecutorService renewer;
  private final ScheduledExecutorService watchdog;
  private final AtomicBoolean down = new AtomicBoolean();
  private volatile long lastAckSentNanos;

  private LeaseKeeper(RegentClient client, long leaseId, long ttlMs, long grantSentNanos, LongSupplier nanoClock,
                      Consumer<String> onStepDown) {
    this.client = client;
    this.leaseId = leaseId;
    this.ttlMs = ttlMs;
    this.nanoClock = nanoClock;
    this.onStepDown = onStepDown;
    this.lastAckSentNanos = grantSentNanos;
    this.renewer = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "regent-lease-" + leaseId));
    // The deadline is watched on its own thread, so a slow renewal never delays the step-down.
    this.watchdog = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "regent-lease-watch-" + leaseId));
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /**
   * Grants a lease of {@code ttlMs} and starts keeping it alive.
   *
   * @param onStepDown told why, once, when the lease is lost or can no longer be vouched for
   * @throws StatusRuntimeException INVALID_ARGUMENT for a TTL out of range, UNAVAILABLE without quorum
   */
  public static LeaseKeeper grant(RegentClient client, long ttlMs, Consumer<String> onStepDown) {
    long sent = System.nanoTime();
    long id = client.grant(ttlMs);
    LeaseKeeper k = new LeaseKeeper(client, id, ttlMs, sent, System::nanoTime, onStepDown);
    k.start();
    return k;
  }

  /**
   * Keeps alive a lease another call granted (a campaign with a TTL), counting its validity from
   * {@code sentNanos}, the {@link System#nanoTime()} at which that call was sent.
   */
  public static LeaseKeeper adopt(RegentClient client, long leaseId, long ttlMs, long sentNanos,
                                  Consumer<String> onStepDown) {
    LeaseKeeper k = new LeaseKeeper(client, leaseId, ttlMs, sentNanos, System::nanoTime, onStepDown);
    k.start();
    return k;
  }

  private void start() {
    // ttl/3 after the grant was sent, not after it returned: a slow grant (cold connection) eats validity.
    long sinceGrantMs = TimeUnit.NANOSECONDS.toMillis(nanoClock.getAsLong() - lastAckSentNanos);
    renewer.schedule(this::renew, Math.max(0, ttlMs / 3 - sinceGrantMs), TimeUnit.MILLISECONDS);
    watchdog.scheduleWithFixedDelay(this::checkDeadline, 10, 10, TimeUnit.MILLISECONDS);
  }

  /**
   * Sends one keepalive and schedules the next: ttl/3 after this one was sent when it is acknowledged, or
   * soon after a failure (no quorum, timeout), so a slow or failed renewal does not push the next one back.
   */
  private void renew() {
    if (down.get()) {
      return;
    }
    long sent = nanoClock.getAsLong();
    long validForMs = TimeUnit.NANOSECONDS.toMillis(lastAckSentNanos + validityNanos() - sent);
    long nextInMs;
    try {
      client.keepAlive(leaseId, Math.max(MIN_CALL_MS, validForMs));
      lastAckSentNanos = Math.max(lastAckSentNanos, sent);
      nextInMs = ttlMs / 3 - TimeUnit.NANOSECONDS.toMillis(nanoClock.getAsLong() - sent);
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        stepDown("lease " + leaseId + " expired or was revoked");
        return;
      }
      nextInMs = Math.min(RETRY_MS, ttlMs / 10);
    }
    if (!down.get()) {
      renewer.schedule(this::renew, Math.max(0, nextInMs), TimeUnit.MILLISECONDS);
    }
  }

  private long validityNanos() {
    return TimeUnit.MILLISECONDS.toNanos(ttlMs * 2 / 3);
  }

  private void checkDeadline() {
    if (!isValid()) {
      stepDown("lease " + leaseId + " not renewed for 2/3 of its " + ttlMs + " ms TTL");
    }
  }

  private void stepDown(String reason) {
    if (down.compareAndSet(false, true)) {
      renewer.shutdown();
      watchdog.shutdown();
      onStepDown.accept(reason);
    }
  }

  /** Whether the holder may still act: renewed within 2/3 ttl (measured from send time) and not lost. */
  public boolean isValid() {
    return !down.get() && nanoClock.getAsLong() - lastAckSentNanos < validityNanos();
  }

  /** The lease id (the log index of its grant). */
  public long leaseId() {
    return leaseId;
  }

  /** The lease TTL in ms. */
  public long ttlMs() {
    return ttlMs;
  }

  /** Stops renewing without revoking: the lease was ended by another call (a resign that revoked it). */
  public void forget() {
    down.set(true);
    renewer.shutdownNow();
    watchdog.shutdownNow();
  }

  /** Stops renewing and revokes the lease (best effort), freeing every name it holds. */
  @Override
  public void close() {
    boolean wasUp = down.compareAndSet(false, true);
    renewer.shutdownNow();
    watchdog.shutdownNow();
    if (wasUp) {
      try {
        client.revoke(leaseId);
      } catch (StatusRuntimeException e) {
        // Already gone, or no quorum: the lease then expires on its own after its TTL.
      }
    }
  }
}
