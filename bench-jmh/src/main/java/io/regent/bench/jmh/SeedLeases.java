package io.regent.bench.jmh;

import io.regent.statemachine.store.RegentStore;
import java.nio.file.Path;

/**
 * Writes a Regent state of N leases to {@code DIR/lmdb}, for measurements at scale that would take too long
 * to build through the API (10^6 grants): {@code regent snapshot save FILE --data-dir DIR} turns it into a
 * snapshot file, {@code regent snapshot restore} seeds cluster nodes with it.
 *
 * <p>{@code java -cp bench-jmh/target/benchmarks.jar io.regent.bench.jmh.SeedLeases DIR N TTL_MS}
 */
public final class SeedLeases {
  private SeedLeases() {
  }

  /** Entry point; exit 2 on bad arguments. */
  public static void main(String[] args) {
    if (args.length != 3) {
      System.err.println("usage: SeedLeases DIR N TTL_MS");
      System.exit(2);
    }
    int count = Integer.parseInt(args[1]);
    long ttlMs = Long.parseLong(args[2]);
    try (RegentStore store = RegentStore.open(Path.of(args[0]).resolve("lmdb"))) {
      long next = Stores.fill(store, 1, count, 10_000, ttlMs);
      System.out.printf("seeded %d leases of TTL %d ms, applied index %d%n", count, ttlMs, next - 1);
    }
  }
}
