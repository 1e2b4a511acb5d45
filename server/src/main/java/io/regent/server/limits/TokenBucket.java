package io.regent.server.limits;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A token bucket: up to {@code burst} calls at once, refilled at {@code perSecond} tokens per second on a
 * monotonic clock. Thread-safe without a lock: every caller without a certificate shares one identity's bucket, so a
 * monitor here serialised every call of the node (issue 35).
 *
 * <p>Kept as the time at which the bucket would be full again, in its "virtual scheduling" form (the generic cell
 * rate algorithm): a take moves that time one refill interval on, and is allowed while it stays within {@code burst}
 * intervals of now. That is the same rule as counting tokens, in one long that a compare-and-set can move.
 */
final class TokenBucket {
  /** The farthest ahead a bucket's times reach (about 73 years), so that adding one to a clock reading cannot wrap. */
  private static final long HORIZON_NANOS = Long.MAX_VALUE / 4;
  private final long intervalNanos;
  private final long toleranceNanos;
  private final LongSupplier nanoClock;
  /** When the bucket is full again, on {@link #nanoClock}; at or before now: full. */
  private final AtomicLong fullAt;

  /**
   * @param perSecond refill rate, tokens per second (may be below 1)
   * @param burst capacity, tokens; the bucket starts full
   * @param nanoClock monotonic clock, ns ({@code System::nanoTime} outside tests)
   */
  TokenBucket(double perSecond, int burst, LongSupplier nanoClock) {
    this.intervalNanos = Math.max(1, Math.min(HORIZON_NANOS, Math.round(1e9 / perSecond)));
    this.toleranceNanos = burst > HORIZON_NANOS / intervalNanos ? HORIZON_NANOS : intervalNanos * burst;
    this.nanoClock = nanoClock;
    this.fullAt = new AtomicLong(nanoClock.getAsLong());
  }

  /** Takes one token; false (and nothing taken) when the bucket is empty. */
  boolean tryTake() {
    long now = nanoClock.getAsLong();
    while (true) {
      long full = fullAt.get();
      long next = Math.max(full - now, 0) + intervalNanos; // how far ahead of now the bucket is full after this take
      if (next > toleranceNanos) {
        return false;
      }
      if (fullAt.compareAndSet(full, now + next)) {
        return true;
      }
    }
  }
}
