package io.regent.statemachine.limits;

import java.nio.charset.StandardCharsets;

/** Limits of the public contract (docs/architecture.md §7), enforced at the API and again, deterministically, at apply. */
public final class Limits {
  /** Maximum UTF-8 length of a name, in bytes. */
  public static final int MAX_NAME_BYTES = 1024;
  /** Maximum length of a holder's value, in bytes. */
  public static final int MAX_VALUE_BYTES = 64 * 1024;
  /** Maximum lease TTL in milliseconds (one hour). */
  public static final long MAX_TTL_MS = 3_600_000L;
  /**
   * Leases with at least this TTL (ms) are checkpointed: a Confirm renewing one clears its checkpoint and
   * records its index (docs/architecture.md §3.8). Replicated rule: every replica applies it.
   */
  public static final long CHECKPOINT_MIN_TTL_MS = 5_000L;

  private Limits() {
  }

  /** An error message when {@code name} is empty or longer than {@link #MAX_NAME_BYTES}, else {@code null}. */
  public static String checkName(String name) {
    if (name == null || name.isEmpty()) {
      return "name must not be empty";
    }
    int bytes = name.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_NAME_BYTES) {
      return "name is " + bytes + " bytes, above the limit of " + MAX_NAME_BYTES;
    }
    return null;
  }

  /** An error message when a value of {@code bytes} bytes is above {@link #MAX_VALUE_BYTES}, else null. */
  public static String checkValue(int bytes) {
    return bytes > MAX_VALUE_BYTES
        ? "value is " + bytes + " bytes, above the limit of " + MAX_VALUE_BYTES : null;
  }
}
