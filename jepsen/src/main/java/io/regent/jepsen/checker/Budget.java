package io.regent.jepsen.checker;

import java.time.Duration;
import java.util.Objects;

/**
 * How much the linearizability search may spend before it answers {@link Verdict#UNKNOWN}: wall time,
 * and the number of memoized configurations (which bounds memory).
 *
 * @param time wall-clock limit for the whole check (all keys together)
 * @param maxConfigurations limit on memoized (linearized-set, state) configurations, all keys together
 */
public record Budget(Duration time, long maxConfigurations) {

  /** 60 s and 5 million configurations (roughly 1 GB in the worst case). */
  public static final Budget DEFAULT = new Budget(Duration.ofSeconds(60), 5_000_000);

  /** Validates the limits. */
  public Budget {
    Objects.requireNonNull(time, "time");
    if (time.isNegative() || maxConfigurations <= 0) {
      throw new IllegalArgumentException("budget must be positive: " + time + ", " + maxConfigurations);
    }
  }

  /** A budget with the given time and the default configuration limit. */
  public static Budget ofTime(Duration time) {
    return new Budget(time, DEFAULT.maxConfigurations);
  }
}
