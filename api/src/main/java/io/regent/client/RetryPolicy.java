package io.regent.client;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * How {@link RegentClient} retries a call that failed on every endpoint: up to {@code rounds} passes over the
 * endpoints, pausing between passes for a backoff whose cap starts at {@code initialBackoff} and doubles up to
 * {@code maxBackoff}, all within the call's deadline. Only calls that are safe to repeat are retried at all
 * (see {@link RegentClient}); the default, {@link #ONCE}, makes one pass.
 *
 * <p>Each pause is jittered, "equal jitter": half of the cap, plus a uniformly random part of the other half.
 * Without jitter every client that lost the same leader would retry in lockstep, each pass a burst at the new
 * leader; with it they spread over half the cap, while the fixed half keeps the pause at least half as long as the
 * cap (full jitter, uniform over the whole cap, would sometimes retry at once against a node still electing).
 *
 * @param rounds passes over the endpoints, at least 1
 * @param initialBackoff cap of the pause after the first failed pass, not negative
 * @param maxBackoff largest cap, at least {@code initialBackoff}
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

  /** The jittered pause after failed pass {@code pass} (0-based), ms: see the class comment. */
  long backoffMs(int pass) {
    return backoffMs(pass, ThreadLocalRandom.current());
  }

  /** {@link #backoffMs(int)} drawing from {@code random}. */
  long backoffMs(int pass, RandomGenerator random) {
    return equalJitter(capMs(pass), random);
  }

  /**
   * The cap of the pause after failed pass {@code pass}, ms: {@code initialBackoff} doubled {@code pass} times,
   * at most {@code maxBackoff}.
   */
  long capMs(int pass) {
    long ms = initialBackoff.toMillis();
    for (int i = 0; i < pass && ms < maxBackoff.toMillis(); i++) {
      ms *= 2;
    }
    return Math.min(ms, maxBackoff.toMillis());
  }

  /** A pause in [capMs/2, capMs], uniform, ms; 0 for a cap of 0 (also for this client's other backoffs). */
  static long equalJitter(long capMs, RandomGenerator random) {
    long half = capMs / 2;
    return half + random.nextLong(capMs - half + 1);
  }
}
