package io.regent.fencing;

import java.util.function.Supplier;

/**
 * Where a guard keeps H, the highest admitted token per key, and how it makes the check, the caller's write
 * and the update of H one atomic step. Without that atomicity two writers could both pass the check and
 * the older one write last, which is the very race fencing exists to stop.
 */
public interface FenceStore {
  /**
   * If {@code mode} admits {@code token} against the key's H, runs {@code write} and sets H to
   * {@code token}, as one atomic step with respect to every other call for the same key. If {@code write}
   * throws, H is unchanged and the exception propagates.
   *
   * @param key the resource key; not null
   * @param token τ, at least 1
   * @return what {@code write} returned
   * @throws StaleTokenException when {@code mode} refuses τ; {@code write} did not run
   */
  <T> T admit(String key, long token, FencingMode mode, Supplier<T> write);

  /**
   * The idempotent {@link #admit}: as one atomic step with respect to every other call for the same key, looks up
   * {@code idempotencyKey} among the key's live records (see {@link IdempotencyKeys} for the rules and their
   * order); if it is there with {@code requestHash}, returns its stored result without running {@code effect}
   * or checking the token; if it is there with another hash, refuses; otherwise admits {@code token} as
   * {@link #admit} does, runs {@code effect}, and records the key with the hash and the result, all or nothing.
   *
   * <p>The default implementation refuses: a store that keeps no records cannot make a write idempotent.
   *
   * @param key the resource key; idempotency keys are scoped to it
   * @param token τ, at least 1
   * @param idempotencyKey checked by {@link IdempotencyKeys#checkKey}
   * @param requestHash checked by {@link IdempotencyKeys#checkHash}
   * @return what {@code effect} returned, now or at the key's first write
   * @throws StaleTokenException when the key is not on record and {@code mode} refuses τ; nothing was recorded
   * @throws IdempotencyKeyReusedException when the key is on record with another request hash
   * @throws UnsupportedOperationException when this store keeps no idempotency records
   */
  default <T> T write(String key, long token, FencingMode mode, String idempotencyKey, String requestHash,
                      Supplier<T> effect) {
    throw new UnsupportedOperationException("the " + name() + " fence store keeps no idempotency keys");
  }

  /** H for {@code key}: the highest admitted token, or 0 when none has been admitted. */
  long highest(String key);

  /** A short name of this backend, the {@code store} tag of {@value FenceMetrics#REJECTED}. */
  String name();
}
