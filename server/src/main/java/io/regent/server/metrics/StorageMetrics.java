package io.regent.server.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.regent.statemachine.store.DataDirFull;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The data directory's gauges (docs/operations.md, "Disk full"): {@code regent_data_dir_free_bytes}, the bytes
 * usable on its filesystem (-1 when unreadable), and {@code regent_data_dir_full}, 1 once a write failed for lack
 * of space or while fewer than {@link DataDirFull#FULL_BYTES} are usable, else 0.
 */
final class StorageMetrics {
  private StorageMetrics() {
  }

  /** Registers both gauges for data directory {@code root}; {@code fault} is the replica's storage fault. */
  static void bind(MeterRegistry registry, Path root, Supplier<Optional<String>> fault) {
    Gauge.builder("regent.data.dir.free.bytes", () -> DataDirFull.usableBytes(root))
        .description("Bytes usable on the filesystem of this node's data directory").register(registry);
    Gauge.builder("regent.data.dir.full", () -> full(root, fault) ? 1 : 0)
        .description("1 when this node's data directory is full (a write failed for lack of space, or fewer "
            + "than " + DataDirFull.FULL_BYTES + " bytes are usable)").register(registry);
  }

  private static boolean full(Path root, Supplier<Optional<String>> fault) {
    if (fault.get().filter(f -> f.startsWith(DataDirFull.WORDS)).isPresent()) {
      return true;
    }
    long free = DataDirFull.usableBytes(root);
    return free >= 0 && free < DataDirFull.FULL_BYTES;
  }
}
