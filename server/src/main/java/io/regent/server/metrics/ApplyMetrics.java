package io.regent.server.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.regent.statemachine.apply.ApplyOutcome;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.ratis.ApplyObserver;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What this node's applies did and how long they took:
 * <ul>
 *   <li>{@code regent_apply_seconds{command}}: time of each applied entry (its LMDB write transaction and
 *       effects), by command ({@code grant}, {@code campaign}, {@code confirm}, {@code expire}...); its
 *       {@code _count} is the number of entries applied per command;
 *   <li>{@code regent_lease_grants_total}, {@code regent_lease_expiries_total} (leases ended by an Expire the
 *       leader proposed when their TTL ran out), {@code regent_lease_revocations_total} (leases ended by
 *       their owner's Revoke) and {@code regent_resigns_total} (names their holder gave up).
 * </ul>
 * Every replica counts the same entries, so the counters agree across caught-up nodes. Entries skipped as
 * replays after a restart are not counted again.
 */
final class ApplyMetrics implements ApplyObserver {
  /** Buckets of the apply histogram: 50 µs to 1 s (an apply is one LMDB transaction, usually well under 1 ms). */
  static final Duration[] BUCKETS = {Duration.ofNanos(50_000), Duration.ofNanos(100_000),
      Duration.ofNanos(250_000), Duration.ofNanos(500_000), Duration.ofMillis(1), Duration.ofMillis(2),
      Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(100),
      Duration.ofMillis(250), Duration.ofSeconds(1)};

  private final Map<LogEntry.CommandCase, Timer> timers = new EnumMap<>(LogEntry.CommandCase.class);
  private final Counter grants;
  private final Counter expiries;
  private final Counter revocations;
  private final Counter resigns;

  ApplyMetrics(MeterRegistry registry) {
    for (LogEntry.CommandCase c : LogEntry.CommandCase.values()) {
      String command = c == LogEntry.CommandCase.COMMAND_NOT_SET ? "unknown" : c.name().toLowerCase(Locale.ROOT);
      timers.put(c, Timer.builder("regent.apply").tag("command", command)
          .description("Entries applied on this node by command: LMDB write transaction plus effects")
          .serviceLevelObjectives(BUCKETS).register(registry));
    }
    this.grants = Counter.builder("regent.lease.grants").description("Lease grants applied on this node")
        .register(registry);
    this.expiries = Counter.builder("regent.lease.expiries")
        .description("Leases ended by an applied Expire (the leader measured their TTL as elapsed)")
        .register(registry);
    this.revocations = Counter.builder("regent.lease.revocations")
        .description("Leases ended by an applied Revoke (their owner gave them up)").register(registry);
    this.resigns = Counter.builder("regent.resigns")
        .description("Names given up by their holder through an applied Resign").register(registry);
  }

  @Override
  public void applied(LogEntry command, ApplyOutcome outcome, long nanos) {
    if (outcome == null) {
      return; // a replay after a restart: counted and timed when it was first applied
    }
    timers.get(command.getCommandCase()).record(nanos, TimeUnit.NANOSECONDS);
    grants.increment(outcome.grants().size());
    switch (command.getCommandCase()) {
      case EXPIRE -> expiries.increment(outcome.ended().size());
      // a batch ends leases only by its revokes (and resigns that revoke): their owners gave them up
      case REVOKE, BATCH -> revocations.increment(outcome.ended().size());
      default -> { }
    }
    for (ChangeEvent e : outcome.events()) {
      if (e.kind() == ChangeEvent.Kind.RESIGNED) {
        resigns.increment();
      }
    }
  }
}
