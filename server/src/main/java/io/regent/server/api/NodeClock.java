package io.regent.server.api;

import io.regent.api.v1.LeaseKeepAliveResponse;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Stamps a renewal's answer with this node's monotonic clock, its member id and its process's start, so that a
 * client can measure its own clock's rate against this node's over its keepalives (docs/architecture.md §3.6,
 * "Clock bounds"). A reading rides on the answer the keepalive gets anyway: no extra call, three small fields.
 * Why a reading and not TimeToLive's remaining TTL: that would cost a linearizable call per sample, and its
 * remaining time is measured from the leader's own renewal instant, which the client cannot see.
 */
final class NodeClock {
  private final Supplier<String> node;
  private final LongSupplier nanos;
  private final long startedMs;

  /**
   * @param node this node's member id, or null without Raft
   * @param nanos the monotonic clock, ns ({@link System#nanoTime})
   * @param startedMs the wall time of this process's start, ms since the epoch (an identity, never a time)
   */
  NodeClock(Supplier<String> node, LongSupplier nanos, long startedMs) {
    this.node = node;
    this.nanos = nanos;
    this.startedMs = startedMs;
  }

  /** Sets {@code node_clock_ms} (read now), {@code node} and {@code node_started_ms} on {@code answer}. */
  LeaseKeepAliveResponse.Builder stamp(LeaseKeepAliveResponse.Builder answer) {
    String id = node.get();
    return answer.setNodeClockMs(TimeUnit.NANOSECONDS.toMillis(nanos.getAsLong()))
        .setNode(id == null ? "" : id).setNodeStartedMs(startedMs);
  }
}
