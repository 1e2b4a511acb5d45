package io.regent.server.limits;

/**
 * The overload limits of one node's public API (docs/architecture.md §7.2): how much bulk work it admits at once,
 * and what each client identity may use. A call beyond one is refused at once with {@code RESOURCE_EXHAUSTED}, a
 * message naming the limit (and the identity), and a retry hint; it changes nothing.
 *
 * <p>Calls go in two lanes ({@link io.regent.server.rpc.Lane}, declared per method in
 * {@link io.regent.server.rpc.MethodRules}): the priority lane (keepalives, revokes, resigns and unlocks, health
 * checks, membership changes) is never refused by the bulk limits; the bulk lane (reads, grants, campaigns, locks,
 * Observe and Group.Watch streams, …) is.
 *
 * @param maxBulkCalls bulk calls this node has in progress at once, over all clients (a stream counts while it
 *     opens only: open streams are bounded by {@code maxStreamsPerIdentity} and the node's {@code maxObservers})
 * @param maxBulkCallsPerIdentity bulk calls one identity may have in progress on this node
 * @param identityRequestsPerSecond calls per second one identity may start on this node, sustained (token bucket;
 *     keepalives are not counted: an identity's leases bound them)
 * @param identityRequestBurst calls one identity may start at once above that rate (bucket size)
 * @param maxLeasesPerIdentity live leases one identity may have granted through this node
 * @param maxNamesPerIdentity names the leases one identity was granted through this node may hold at once
 * @param maxStreamsPerIdentity Observe and Group.Watch streams one identity may have open on this node
 * @param retryAfterMs the back-off a refusal suggests, ms (trailer {@value Admission#RETRY_PUSHBACK_KEY}, which
 *     grpc-java's retrying clients honour, and the message)
 * @param priorityLanes false only as the negative control of the overload tests: every call goes in the bulk lane,
 *     keepalives included
 */
public record AdmissionLimits(int maxBulkCalls, int maxBulkCallsPerIdentity, double identityRequestsPerSecond,
                              int identityRequestBurst, int maxLeasesPerIdentity, int maxNamesPerIdentity,
                              int maxStreamsPerIdentity,
                              long retryAfterMs, boolean priorityLanes) {

  /**
   * Generous enough that no benchmark or test of one well-behaved client is refused (512 closed-loop clients keep at
   * most 512 calls in progress); an operator sizes them to what the node sustains (docs/operations.md).
   */
  public static final AdmissionLimits DEFAULTS = new AdmissionLimits(4_096, 4_096, 100_000, 100_000, 1_000_000,
      1_000_000, 20_000, 100, true);

  /**
   * Validates the limits.
   *
   * @throws IllegalArgumentException when one is not positive
   */
  public AdmissionLimits {
    positive("max bulk calls", maxBulkCalls);
    positive("max bulk calls per identity", maxBulkCallsPerIdentity);
    positive("identity request burst", identityRequestBurst);
    positive("max leases per identity", maxLeasesPerIdentity);
    positive("max names per identity", maxNamesPerIdentity);
    positive("max streams per identity", maxStreamsPerIdentity);
    positive("retry hint", retryAfterMs);
    if (!(identityRequestsPerSecond > 0)) {
      throw new IllegalArgumentException("identity request rate must be positive, got " + identityRequestsPerSecond);
    }
  }

  /** These limits with the priority lanes off (the negative control) or on. */
  public AdmissionLimits withPriorityLanes(boolean on) {
    return new AdmissionLimits(maxBulkCalls, maxBulkCallsPerIdentity, identityRequestsPerSecond, identityRequestBurst,
        maxLeasesPerIdentity, maxNamesPerIdentity, maxStreamsPerIdentity, retryAfterMs, on);
  }

  private static void positive(String what, long value) {
    if (value <= 0) {
      throw new IllegalArgumentException(what + " must be positive, got " + value);
    }
  }
}
