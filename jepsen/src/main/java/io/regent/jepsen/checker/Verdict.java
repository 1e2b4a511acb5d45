package io.regent.jepsen.checker;

import io.regent.jepsen.history.Keyword;

/** A checker's verdict. {@link #UNKNOWN} means the budget ran out: it is never a guess. */
public enum Verdict {
  /** The property holds for the whole history. */
  VALID,
  /** The property is violated; the result says where. */
  INVALID,
  /** The checker gave up (time or memory budget) before it could decide. */
  UNKNOWN;

  /** Jepsen's {@code :valid?} value: {@code true}, {@code false} or {@code :unknown}. */
  public Object ednValue() {
    return switch (this) {
      case VALID -> Boolean.TRUE;
      case INVALID -> Boolean.FALSE;
      case UNKNOWN -> Keyword.of("unknown");
    };
  }
}
