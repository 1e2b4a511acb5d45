package io.regent.server.limits;

import java.util.function.LongSupplier;

/**
 * A token bucket: up to {@code burst} calls at once, refilled at {@code perSecond} tokens per second on a
 * monotonic clock. Thread-safe.
 */
final class TokenBucket {
  private final double perNano;
  private final double burst;
  private final LongSupplier nanoClock;
  private double tokens;
  private long last;

  /**
   * @param perSecond refill rate, tokens per second (may be below 1)
   * @param burst capacity, tokens; the bucket starts full
   * @param nanoClock monotonic clock, ns ({@code System::nanoTime} outside tests)
   */
  TokenBucket(double perSecond, int burst, LongSupplier nanoClock) {
    this.perNano = perSecond / 1e9;
    this.burst = burst;
    this.nanoClock = nanoClock;
    this.tokens = burst;
    this.last = nanoClock.getAsLong();
  }

  /** Takes one token; false (and nothing taken) when the bucket is empty. */
  synchronized boolean tryTake() {
    long now = nanoClock.getAsLong();
    tokens = Math.min(burst, tokens + (now - last) * perNano);
    last = now;
    if (tokens < 1) {
      return false;
    }
    tokens -= 1;
    return true;
  }
}
