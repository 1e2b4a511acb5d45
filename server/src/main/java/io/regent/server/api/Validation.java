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

  /**
   * Returns {@code name} when it may enter the state (a campaign's or lock's name): a valid {@link #name} without a
   * control character (Unicode Cc: C0, DEL, C1), a bidirectional control (U+061C, U+200E, U+200F, U+202A..U+202E,
   * U+2066..U+2069) or U+FFFD, the replacement character a mis-decoded byte becomes — so that a name shows as what it
   * is and two different byte strings cannot become one lock (docs/api.md "Names"). Names already held keep working
   * for resign, proclaim and observe.
   */
  static String newName(String name) {
    name(name);
    for (int i = 0; i < name.length(); ) {
      int c = name.codePointAt(i);
      String what = Character.getType(c) == Character.CONTROL ? "a control character"
          : c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069)
          ? "a bidirectional control" : c == 0xFFFD ? "the replacement character (bytes that were not UTF-8)" : null;
      if (what != null) {
        throw StatusCodes.invalid(String.format("name holds U+%04X, %s, at character %d: names may not hold "
            + "control, bidirectional-control or replacement characters", c, what, i));
      }
      i += Character.charCount(c);
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
