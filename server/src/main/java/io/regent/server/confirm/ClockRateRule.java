package io.regent.server.confirm;

import java.util.concurrent.TimeUnit;

/**
 * When a peer's clock rate counts as known and within bounds for the leadership lease (docs/architecture.md §8.1,
 * "clock rates").
 *
 * @param windowNanos how long samples are kept, ns: the longest baseline, for peers whose round trips are long
 * @param minSpanNanos the shortest baseline an estimate uses, ns
 * @param maxError the widest interval that counts as known, as its half-width over its middle (0.02: ±2 %)
 * @param bound how far from 1.0 a rate may be (0.10: 0.9..1.1) before the lease is withheld
 * @param staleNanos how long after the last sample the rate counts as unknown again, ns
 */
public record ClockRateRule(long windowNanos, long minSpanNanos, double maxError, double bound, long staleNanos) {
  /**
   * The rule the nodes run: ±10 %, well inside the 25 % the lease's 0.8 factor tolerates ({@link
   * LeadershipLease#SAFE_FACTOR}), and far outside any working clock (quartz drifts by ppm, NTP slews by at most
   * 500 ppm), so it fires on a broken clock before the lease becomes unsafe and never on a healthy one. An
   * interval of ±2 % at most keeps the measurement error well below the bound; a 1 s baseline reaches it with
   * round trips up to ~20 ms, and a 10 s window with round trips up to ~200 ms. Stale after 2 s: four probes
   * ({@code ClockProber}) missed.
   */
  public static final ClockRateRule DEFAULT = new ClockRateRule(TimeUnit.SECONDS.toNanos(10),
      TimeUnit.SECONDS.toNanos(1), 0.02, 0.10, TimeUnit.SECONDS.toNanos(2));

  /** @throws IllegalArgumentException when a span or share is not positive, or the error is not below the bound */
  public ClockRateRule {
    if (windowNanos <= 0 || minSpanNanos <= 0 || minSpanNanos > windowNanos || staleNanos <= 0) {
      throw new IllegalArgumentException("clock rate window " + windowNanos + " ns, span " + minSpanNanos
          + " ns, staleness " + staleNanos + " ns: all must be above 0 and the span within the window");
    }
    if (!(bound > 0 && bound < 1 && maxError > 0 && maxError < bound)) {
      throw new IllegalArgumentException("clock rate bound " + bound + " and error " + maxError
          + ": need 0 < error < bound < 1");
    }
  }
}
