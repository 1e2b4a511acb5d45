package io.regent.server.limits;

import io.regent.statemachine.limits.Limits;
import java.util.Objects;

/**
 * Resource limits of one node's public API. Exceeding one answers {@code RESOURCE_EXHAUSTED} with a message
 * naming the limit, changes nothing, and leaves every other client served (docs/architecture.md §7).
 *
 * <p>A "connection" is one client transport, identified by its remote address ({@code ip:port}); a client
 * that reconnects gets fresh per-connection budgets, so the node-wide limits ({@code maxLeases},
 * {@code maxNames}, {@code maxObservers}) are what bound the state and memory in the end.
 *
 * @param maxMessageBytes largest inbound gRPC message, bytes (a name is at most 1 KiB and a value 64 KiB)
 * @param maxCallsPerConnection calls (unary, blocking campaigns and Observe streams) one connection may have
 *     in progress at once
 * @param maxLeasesPerConnection live leases granted over one connection
 * @param maxLeases live leases in the whole replicated state (checked at apply, so every replica agrees)
 * @param maxNames names in the whole replicated state (checked at apply)
 * @param maxCandidates waiting candidates of one name (checked at apply)
 * @param maxTtlMs largest lease TTL this node grants, ms; at most the contract's one hour
 * @param requestsPerSecond sustained calls per second one connection may start (token bucket)
 * @param requestBurst calls one connection may start at once before the rate applies (bucket size)
 * @param maxObservers Observe streams this node serves at once, over all connections
 * @param observeBuffer events one Observe stream may have queued for a slow reader before it is closed
 * @param admission the priority lanes, the node's bulk limit and the per-identity quotas ({@link AdmissionLimits})
 */
public record ServerLimits(int maxMessageBytes, int maxCallsPerConnection, int maxLeasesPerConnection,
                           long maxLeases, long maxNames, int maxCandidates, long maxTtlMs, double requestsPerSecond,
                           int requestBurst, int maxObservers, int observeBuffer, AdmissionLimits admission) {

  /**
   * Defaults generous enough for the benchmarks (one connection holding 10 000 leases and renewing them) and
   * tight enough that no single client can exhaust the node's memory.
   */
  public static final ServerLimits DEFAULTS = new ServerLimits(1 << 20, 1_000, 20_000, 1_000_000, 1_000_000,
      1_000, Limits.MAX_TTL_MS, 10_000, 10_000, 10_000, 1_024, AdmissionLimits.DEFAULTS);

  /** The limits above with {@link AdmissionLimits#DEFAULTS}. */
  public ServerLimits(int maxMessageBytes, int maxCallsPerConnection, int maxLeasesPerConnection, long maxLeases,
                      long maxNames, int maxCandidates, long maxTtlMs, double requestsPerSecond, int requestBurst,
                      int maxObservers, int observeBuffer) {
    this(maxMessageBytes, maxCallsPerConnection, maxLeasesPerConnection, maxLeases, maxNames, maxCandidates, maxTtlMs,
        requestsPerSecond, requestBurst, maxObservers, observeBuffer, AdmissionLimits.DEFAULTS);
  }

  /** These limits with {@code admission} instead. */
  public ServerLimits withAdmission(AdmissionLimits admission) {
    return new ServerLimits(maxMessageBytes, maxCallsPerConnection, maxLeasesPerConnection, maxLeases, maxNames,
        maxCandidates, maxTtlMs, requestsPerSecond, requestBurst, maxObservers, observeBuffer, admission);
  }

  /**
   * Validates the limits.
   *
   * @throws IllegalArgumentException when a limit is not positive, the message limit cannot carry a maximal
   *     value, or {@code maxTtlMs} is above one hour
   */
  public ServerLimits {
    positive("max message size", maxMessageBytes);
    positive("max calls per connection", maxCallsPerConnection);
    positive("max leases per connection", maxLeasesPerConnection);
    positive("max leases", maxLeases);
    positive("max names", maxNames);
    positive("max candidates", maxCandidates);
    positive("max observers", maxObservers);
    positive("observe buffer", observeBuffer);
    positive("request burst", requestBurst);
    Objects.requireNonNull(admission, "admission");
    if (!(requestsPerSecond > 0)) {
      throw new IllegalArgumentException("request rate must be positive, got " + requestsPerSecond);
    }
    int needed = Limits.MAX_VALUE_BYTES + 2 * Limits.MAX_NAME_BYTES;
    if (maxMessageBytes < needed) {
      throw new IllegalArgumentException("max message size " + maxMessageBytes + " bytes cannot carry a "
          + Limits.MAX_VALUE_BYTES + "-byte value; it must be at least " + needed);
    }
    if (maxTtlMs <= 0 || maxTtlMs > Limits.MAX_TTL_MS) {
      throw new IllegalArgumentException("max TTL " + maxTtlMs + " ms outside (0, " + Limits.MAX_TTL_MS + "]");
    }
  }

  private static void positive(String what, long value) {
    if (value <= 0) {
      throw new IllegalArgumentException(what + " must be positive, got " + value);
    }
  }
}
