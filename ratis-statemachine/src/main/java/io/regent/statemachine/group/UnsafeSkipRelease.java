package io.regent.statemachine.group;

/**
 * TESTS ONLY: the negative control of Jepsen's {@code ownership} workload, switched on for a whole server
 * process by the hidden {@code regent server --unsafe-skip-release}. With it, a rebalance hands a partition to
 * its new target in the same entry, before the old owner released it and while its lease still runs: the very
 * move the release rule of docs/ownership.md forbids, so that two members believe they own one partition at
 * once and the workload's checker must say so. Every node of such a cluster gets the flag, so the replicas
 * still apply alike; it can be switched on, never off, and never by a config file.
 */
public final class UnsafeSkipRelease {
  private static volatile boolean enabled;

  private UnsafeSkipRelease() {
  }

  /** Switches the unsafe rule on for this process (the server's start-up, before any apply). */
  public static void enable() {
    enabled = true;
  }

  /** Whether this process skips the release rule. */
  public static boolean enabled() {
    return enabled;
  }
}
