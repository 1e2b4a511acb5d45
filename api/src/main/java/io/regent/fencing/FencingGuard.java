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
 * increments {@value FenceMetrics#REJECTED}. {@link #write} adds an idempotency key, so that a retried write
 * runs its effect once and is answered with the first result.
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

  /**
   * An idempotent {@link #admit}: runs {@code effect} at most once per idempotency key, however often the write
   * is retried. In one atomic step (one transaction) with respect to every other write to {@code key}, the
   * store looks the idempotency key up, checks the token and runs the effect:
   * <ul>
   *   <li>the key is on record with {@code requestHash}: returns the result of its first write; the effect does
   *       not run and the token is not checked (the write it repeats was admitted when it was made);
   *   <li>the key is on record with another hash: {@link IdempotencyKeyReusedException};
   *   <li>the key is not on record (or has expired): as {@link #admit}, and on success records the key, the
   *       hash and the result, together with the effect and H.
   * </ul>
   * Stripe's idempotency keys are the model (see {@link IdempotencyKeys}): result stored with the effect, the
   * same key with other parameters refused, keys kept for a retention (24 h by default, see the store).
   *
   * <p>Usage: {@code guard.write("orders", token, requestId, IdempotencyKeys.sha256(orderJson), () ->
   * db.save(order))}, with the same {@code requestId} on every retry.
   *
   * @param key the resource key; not null; idempotency keys are scoped to it
   * @param token τ: the fencing token of the writer, at least 1
   * @param idempotencyKey the client's name for this request: 1 to 255 characters, the same on every retry
   * @param requestHash a digest of the request's parameters (e.g. {@link IdempotencyKeys#sha256(String...)}),
   *     1 to 255 characters; what tells a retry from another request under the same key
   * @param effect the guarded write; if it throws, nothing is recorded and the exception propagates
   * @return what {@code effect} returned, now or at the key's first write
   * @throws StaleTokenException naming τ and H when the key is not on record and the token is refused; the
   *     effect did not run and no key was recorded (counted in {@value FenceMetrics#REJECTED})
   * @throws IdempotencyKeyReusedException when the key is on record with another request hash; the effect
   *     did not run
   * @throws IllegalArgumentException when {@code token} is below 1, or the key or hash is empty or too long
   * @throws UnsupportedOperationException when the store keeps no idempotency records
   */
  public <T> T write(String key, long token, String idempotencyKey, String requestHash, Supplier<T> effect) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(effect, "effect");
    if (token < 1) {
      throw new IllegalArgumentException("fencing token must be at least 1, got " + token);
    }
    IdempotencyKeys.checkKey(idempotencyKey);
    IdempotencyKeys.checkHash(requestHash);
    try {
      return store.write(key, token, mode, idempotencyKey, requestHash, effect);
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
