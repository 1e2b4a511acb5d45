package io.regent.server.config;

import io.regent.server.confirm.LeadershipLease;

/**
 * How a node confirms its leadership before it acknowledges a keepalive or answers a linearizable read
 * (docs/architecture.md §8.1).
 *
 * @param strict {@code --confirm strict}: always a Confirm round that began after the request arrived; no
 *     leadership lease
 * @param leaseFactor length of the leadership lease as a share of the minimum election timeout; above
 *     {@link LeadershipLease#SAFE_FACTOR} only for the negative control ({@code --unsafe-leadership-lease-factor})
 */
public record ConfirmRule(boolean strict, double leaseFactor) {
  /** The leadership lease at its safe length ({@code --confirm lease}). */
  public static final ConfirmRule LEASE = new ConfirmRule(false, LeadershipLease.SAFE_FACTOR);
  /** {@code --confirm strict}: every keepalive and linearizable read waits for a Confirm round. */
  public static final ConfirmRule STRICT = new ConfirmRule(true, LeadershipLease.SAFE_FACTOR);

  /** @throws IllegalArgumentException when {@code leaseFactor} is not above 0 */
  public ConfirmRule {
    if (!(leaseFactor > 0)) {
      throw new IllegalArgumentException("leadership lease factor " + leaseFactor + " must be above 0");
    }
  }

  /** Whether the lease is longer than the safe length (the negative control). */
  public boolean unsafe() {
    return !strict && leaseFactor > LeadershipLease.SAFE_FACTOR;
  }
}
