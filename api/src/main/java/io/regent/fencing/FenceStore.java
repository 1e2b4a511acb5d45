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

  /** H for {@code key}: the highest admitted token, or 0 when none has been admitted. */
  long highest(String key);

  /** A short name of this backend, the {@code store} tag of {@value FenceMetrics#REJECTED}. */
  String name();
}
