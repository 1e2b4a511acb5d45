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

  /** Longest request id, in characters of {@code [A-Za-z0-9._:-]} (docs/api.md "Request ids"). */
  public static final int MAX_REQUEST_ID_CHARS = 64;
  /**
   * Request records kept, at most: apply prunes the oldest beyond this count or {@link #MAX_REQUEST_BYTES}, the same
   * on every replica. Sized for the clients' retry window (docs/api.md "Request ids"): at 1 000 mutating requests
   * a second, the last 100 s.
   */
  public static final int MAX_REQUEST_RECORDS = 100_000;
  /** Bytes of stored request records, at most (see {@link #MAX_REQUEST_RECORDS}). */
  public static final long MAX_REQUEST_BYTES = 32L << 20;

  private Limits() {
  }

  /** An error message when {@code id} is not a valid request id (empty: none given, valid), else {@code null}. */
  public static String checkRequestId(String id) {
    if (id.length() > MAX_REQUEST_ID_CHARS) {
      return "request_id is " + id.length() + " characters, above the limit of " + MAX_REQUEST_ID_CHARS;
    }
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_'
          || c == ':' || c == '-')) {
        return "request_id may hold only A-Z, a-z, 0-9 and . _ : - (found '" + c + "' at " + i + ")";
      }
    }
    return null;
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
