package io.regent.server.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.regent.server.membership.FollowerLag;
import java.util.List;
import java.util.Map;

/**
 * {@code regent_follower_lag_entries{follower}} and {@code regent_follower_lag_seconds{follower}}: each follower's
 * lag as this node last sampled it while leading (docs/operations.md, "Follower lag"). A node that does not lead
 * exports no row, so the series of a cluster come from its leader alone.
 */
final class FollowerLagMetrics {
  private final MultiGauge entries;
  private final MultiGauge seconds;

  FollowerLagMetrics(MeterRegistry registry) {
    this.entries = MultiGauge.builder("regent.follower.lag.entries")
        .description("Log entries a follower trails this leader by (its last log index minus the follower's "
            + "match index); only the leader exports it").register(registry);
    this.seconds = MultiGauge.builder("regent.follower.lag").baseUnit("seconds")
        .description("While a follower trails this leader, seconds since its match index last moved; 0 when "
            + "caught up; only the leader exports it").register(registry);
  }

  /** Replaces the rows with {@code lag}, by follower id (empty: this node does not lead, no rows). */
  void update(Map<String, FollowerLag> lag) {
    List<MultiGauge.Row<?>> e = lag.entrySet().stream()
        .<MultiGauge.Row<?>>map(f -> MultiGauge.Row.of(Tags.of("follower", f.getKey()), f.getValue().lagEntries()))
        .toList();
    List<MultiGauge.Row<?>> s = lag.entrySet().stream()
        .<MultiGauge.Row<?>>map(f -> MultiGauge.Row.of(Tags.of("follower", f.getKey()), f.getValue().lagSeconds()))
        .toList();
    entries.register(e, true);
    seconds.register(s, true);
  }
}
