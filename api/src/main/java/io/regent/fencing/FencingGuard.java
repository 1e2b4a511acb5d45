package io.regent.fencing;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Admits a write to a resource only when its fencing token is not older than any token admitted before
 * for the same key (docs/architecture.md §5; Kleppmann, "How to do distributed locking"; Chubby sequencers).
 *
 * <p>Usage: {@code guard.admit("orders", token, () -> db.save(order))}. The write runs only if τ passes
 * the mode's rule against H, and H becomes τ atomically with it (see {@link FenceStore}). Every refusal
 * increments {@value FenceMetrics#REJECTED}.
 *
 * <p>Thread-safe when its store is.
 */
public final class FencingGuard {
  private final FenceStore store;
  private final FencingMode mode;
  private final Counter rejected;

  /** A guard reporting to {@link Metrics#globalRegistry}. */
  public FencingGuard(FenceStore store, FencingMode mode) {
    this(store, mode, Metrics.globalRegistry);
  }

  /**
   * @param store where H is kept; {@link InMemoryFenceStore} for a resource in this process
   * @param mode strict (τ &gt; H) or monotone (τ ≥ H)
   * @param registry where the rejection counter is registered (tag {@code store} = {@link FenceStore#name})
   */
  public FencingGuard(FenceStore store, FencingMode mode, MeterRegistry registry) {
    this.store = Objects.requireNonNull(store, "store");
    this.mode = Objects.requireNonNull(mode, "mode");
    this.rejected = FenceMetrics.rejected(registry, store.name(), mode);
  }

  /**
   * Runs {@code write} if {@code token} is admitted for {@code key}, and records it as the key's H.
   *
   * @param key the resource key; not null
   * @param token τ: the fencing token of the writer (a Regent token is a Raft log index, at least 1)
   * @param write the guarded write; if it throws, H is unchanged and the exception propagates
   * @return what {@code write} returned
   * @throws StaleTokenException naming τ and H when the token is refused; {@code write} did not run
   * @throws IllegalArgumentException when {@code token} is below 1
   */
  public <T> T admit(String key, long token, Supplier<T> write) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(write, "write");
    if (token < 1) {
      throw new IllegalArgumentException("fencing token must be at least 1, got " + token);
    }
    try {
      return store.admit(key, token, mode, write);
    } catch (StaleTokenException e) {
      rejected.increment();
      throw e;
    }
  }

  /** H for {@code key}: the highest admitted token, or 0 when none. */
  public long highest(String key) {
    return store.highest(key);
  }

  /** This guard's rule. */
  public FencingMode mode() {
    return mode;
  }
}
