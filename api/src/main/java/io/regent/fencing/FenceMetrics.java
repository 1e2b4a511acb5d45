package io.regent.fencing;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Locale;

/**
 * The one metric every fencing backend reports, so that a dashboard or a Jepsen run reads the same name
 * whether the guard is in memory, in SQL or in the ledger's LMDB.
 */
public final class FenceMetrics {
  /**
   * Count of writes refused for a stale token. Named as docs/architecture.md §5 spells it; the Prometheus naming
   * convention keeps a counter name that already ends in {@code _total} as it is.
   */
  public static final String REJECTED = "regent_fence_rejected_total";

  private FenceMetrics() {
  }

  /**
   * The rejection counter of one backend and mode, registered on first use.
   *
   * @param store the backend, e.g. {@code memory}, {@code jdbc}, {@code lmdb} (tag {@code store})
   * @param mode the guard's mode (tag {@code mode}: {@code strict} or {@code monotone})
   */
  public static Counter rejected(MeterRegistry registry, String store, FencingMode mode) {
    return Counter.builder(REJECTED)
        .description("Writes refused because their fencing token was stale")
        .tag("store", store)
        .tag("mode", mode.name().toLowerCase(Locale.ROOT))
        .register(registry);
  }
}
