package io.regent.server.api;

import com.google.protobuf.ByteString;
import io.regent.api.v1.LeaderKey;
import io.regent.statemachine.limits.Limits;

/** Request validation of the public API; failures are INVALID_ARGUMENT and change nothing. */
final class Validation {
  private Validation() {
  }

  /** Returns {@code name} when it is a valid name (non-empty, at most 1 KiB of UTF-8). */
  static String name(String name) {
    String bad = Limits.checkName(name);
    if (bad != null) {
      throw StatusCodes.invalid(bad);
    }
    return name;
  }

  /** Checks a holder value's size (at most 64 KiB). */
  static ByteString value(ByteString value) {
    String bad = Limits.checkValue(value.size());
    if (bad != null) {
      throw StatusCodes.invalid(bad);
    }
    return value;
  }

  /** Checks a leader key sent back by a holder: a valid name and a positive token. */
  static LeaderKey key(LeaderKey key) {
    name(key.getName());
    if (key.getToken() <= 0) {
      throw StatusCodes.invalid("token must be positive, got " + key.getToken());
    }
    return key;
  }

  /** Checks a lock-delay: 0 (none) up to one hour, in ms. */
  static long lockDelay(long ms) {
    if (ms < 0 || ms > Limits.MAX_TTL_MS) {
      throw StatusCodes.invalid("lock delay " + ms + " ms outside [0, " + Limits.MAX_TTL_MS + "]");
    }
    return ms;
  }

  /** Checks a lease id. */
  static long lease(long id) {
    if (id <= 0) {
      throw StatusCodes.invalid("lease id must be positive, got " + id);
    }
    return id;
  }
}
