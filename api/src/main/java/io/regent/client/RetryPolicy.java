package io.regent.client;

import java.time.Duration;

/**
 * How {@link RegentClient} retries a call that failed on every endpoint: up to {@code rounds} passes over the
 * endpoints, pausing between passes for a backoff that starts at {@code initialBackoff} and doubles up to
 * {@code maxBackoff}, all within the call's deadline. Only calls that are safe to repeat are retried at all
 * (see {@link RegentClient}); the default, {@link #ONCE}, makes one pass.
 *
 * @param rounds passes over the endpoints, at least 1
 * @param initialBackoff pause after the first failed pass, not negative
 * @param maxBackoff largest pause, at least {@code initialBackoff}
 */
public record RetryPolicy(int rounds, Duration initialBackoff, Duration maxBackoff) {
  /** One pass over the endpoints, no pause: a call fails once every endpoint failed it. */
  public static final RetryPolicy ONCE = new RetryPolicy(1, Duration.ZERO, Duration.ZERO);

  /** @throws IllegalArgumentException for fewer than 1 round or a negative or inverted backoff */
  public RetryPolicy {
    if (rounds < 1) {
      throw new IllegalArgumentException("a retry policy needs at least 1 round, not " + rounds);
    }
    if (initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0) {
      throw new IllegalArgumentException("backoff " + initialBackoff + " up to " + maxBackoff + " is invalid");
    }
  }

  /** The pause after failed pass {@code pass} (0-based), ms. */
  long backoffMs(int pass) {
    long ms = initialBackoff.toMillis();
    for (int i = 0; i < pass && ms < maxBackoff.toMillis(); i++) {
      ms *= 2;
    }
    return Math.min(ms, maxBackoff.toMillis());
  }
}
