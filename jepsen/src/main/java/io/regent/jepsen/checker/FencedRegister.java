package io.regent.jepsen.checker;

import io.regent.jepsen.history.Op;
import java.util.Objects;

/**
 * Regent's model for the {@code election} workload, one instance per name (the op's {@code :key}):
 * the last granted fencing token, a register written only by grants.
 *
 * <ul>
 *   <li>{@code :grant t} — a campaign won with token {@code t}; {@code t} must be strictly greater
 *       than every earlier grant. A grant whose outcome is unknown carries {@code nil} if its token
 *       was never seen: it stands for "some token greater than the last one", which a later read may
 *       reveal.
 *   <li>{@code :read t} — a linearizable {@code leader} read observed token {@code t}: it must be the
 *       last granted token. A read of {@code nil} (no holder) is always possible, because a holder may
 *       resign or its lease may expire without a grant; a read whose result was never seen is left
 *       out.
 *   <li>{@code :resign} / {@code :release} — do not change the last granted token.
 * </ul>
 */
public final class FencedRegister implements Model {
  private final Long last;
  private final boolean unknownAbove;

  private FencedRegister(Long last, boolean unknownAbove) {
    this.last = last;
    this.unknownAbove = unknownAbove;
  }

  /** No grant yet. */
  public static FencedRegister initial() {
    return new FencedRegister(null, false);
  }

  /** The last granted token known to the model, or {@code null}. */
  public Long last() {
    return last;
  }

  @Override
  public Model step(Op op) {
    switch (op.f().name()) {
      case "grant": {
        Long t = token(op);
        if (t == null) {
          return unknownAbove ? this : new FencedRegister(last, true);
        }
        if (!above(t)) {
          return Model.inconsistent("grant of token " + t + " is not above " + describe());
        }
        return new FencedRegister(t, false);
      }
      case "read": {
        Long t = token(op);
        if (op.type() != Op.Type.OK || t == null || t.equals(last)) {
          return this;
        }
        if (unknownAbove && (last == null || t > last)) {
          return new FencedRegister(t, false);
        }
        return Model.inconsistent("read token " + t + " but " + describe());
      }
      case "resign":
      case "release":
        return this;
      default:
        throw new IllegalArgumentException("fenced register has no :f " + op.f());
    }
  }

  /** True if a grant of t is possible: above the last grant and above any unknown grant in between. */
  private boolean above(long t) {
    if (last == null) {
      return true;
    }
    return unknownAbove ? t - last >= 2 : t > last;
  }

  private static Long token(Op op) {
    Object v = op.value();
    if (v == null || v instanceof Long) {
      return (Long) v;
    }
    throw new IllegalArgumentException("fenced register needs a token (integer) or nil: " + op);
  }

  private String describe() {
    String s = last == null ? "no token was granted" : "the last granted token is " + last;
    return unknownAbove ? s + " (plus a grant of unknown token)" : s;
  }

  @Override
  public boolean omittableWhenIndeterminate(Op op) {
    return op.f().name().equals("read") || op.f().name().equals("resign")
        || op.f().name().equals("release");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FencedRegister r && Objects.equals(last, r.last)
        && unknownAbove == r.unknownAbove;
  }

  @Override
  public int hashCode() {
    return Objects.hashCode(last) * 31 + (unknownAbove ? 1 : 0);
  }

  @Override
  public String toString() {
    return "fenced register: " + describe();
  }
}
