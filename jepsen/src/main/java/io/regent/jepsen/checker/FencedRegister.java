package io.regent.jepsen.checker;

import io.regent.jepsen.history.EdnWriter;
import io.regent.jepsen.history.Op;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Regent's model for the {@code election} workload, one instance per name (the op's {@code :key}):
 * the last granted fencing token, a register written only by grants, and who it was granted to when
 * the history says so.
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
 *   <li>The Knossos-format fencing history: {@code :acquire [client token]} is a grant of {@code token}
 *       to {@code client} ({@code [client nil]} while the token is unknown), {@code :read-token [client
 *       token]} a read that observed {@code client} holding the name with {@code token} (also checked:
 *       the token must have been granted to that client; {@code [nil nil]} or {@code nil}: no holder),
 *       {@code :release} with any value changes nothing.
 * </ul>
 *
 * <p>{@link #step} throws {@link IllegalArgumentException} for an {@code :f} not listed here, a token
 * that is not an integer, or an {@code :acquire}/{@code :read-token} value that is not {@code [client
 * token]} (a Knossos {@code mutex} history's valueless {@code :acquire} is not a fencing history).
 */
public final class FencedRegister implements Model {
  /** The {@code :f} values this model reads. */
  public static final Set<String> FS = Set.of("grant", "read", "resign", "release", "acquire", "read-token");

  private final Long last;
  private final boolean unknownAbove;
  private final Object holder;

  private FencedRegister(Long last, boolean unknownAbove, Object holder) {
    this.last = last;
    this.unknownAbove = unknownAbove;
    this.holder = holder;
  }

  /** No grant yet. */
  public static FencedRegister initial() {
    return new FencedRegister(null, false, null);
  }

  /** The last granted token known to the model, or {@code null}. */
  public Long last() {
    return last;
  }

  @Override
  public Model step(Op op) {
    return switch (op.f().name()) {
      case "grant" -> grant(token(op), null);
      case "acquire" -> {
        List<?> v = fencing(op);
        if (v == null) {
          throw new IllegalArgumentException("fenced register needs :acquire [client token]: " + op);
        }
        yield grant(token(op, v.get(1)), v.get(0));
      }
      case "read" -> op.type() == Op.Type.OK ? read(token(op), null) : this;
      case "read-token" -> {
        List<?> v = fencing(op);
        yield op.type() != Op.Type.OK || v == null ? this : read(token(op, v.get(1)), v.get(0));
      }
      case "resign", "release" -> this;
      default -> throw new IllegalArgumentException("fenced register has no :f " + op.f());
    };
  }

  private Model grant(Long t, Object client) {
    if (t == null) {
      return unknownAbove ? this : new FencedRegister(last, true, null);
    }
    if (!above(t)) {
      return Model.inconsistent("grant of token " + t + " is not above " + describe());
    }
    return new FencedRegister(t, false, client);
  }

  /** A read of {@code t} held by {@code client} ({@code null}: the read did not say who). */
  private Model read(Long t, Object client) {
    if (t == null) {
      return this;
    }
    if (t.equals(last)) {
      if (client != null && holder != null && !client.equals(holder)) {
        return Model.inconsistent("read token " + t + " held by " + EdnWriter.writeValue(client)
            + " but it was granted to " + EdnWriter.writeValue(holder));
      }
      return this;
    }
    if (unknownAbove && (last == null || t > last)) {
      return new FencedRegister(t, false, client);
    }
    return Model.inconsistent("read token " + t + " but " + describe());
  }

  /** True if a grant of t is possible: above the last grant and above any unknown grant in between. */
  private boolean above(long t) {
    if (last == null) {
      return true;
    }
    return unknownAbove ? t - last >= 2 : t > last;
  }

  private static Long token(Op op) {
    return token(op, op.value());
  }

  private static Long token(Op op, Object v) {
    if (v == null || v instanceof Long) {
      return (Long) v;
    }
    throw new IllegalArgumentException("fenced register needs a token (integer) or nil: " + op);
  }

  /** {@code [client token]}, or {@code null} for a nil value; anything else is refused. */
  private static List<?> fencing(Op op) {
    if (op.value() == null) {
      return null;
    }
    if (op.value() instanceof List<?> l && l.size() == 2) {
      return l;
    }
    throw new IllegalArgumentException("fenced register needs " + op.f() + " [client token]: " + op);
  }

  private String describe() {
    String s = last == null ? "no token was granted" : "the last granted token is " + last;
    return unknownAbove ? s + " (plus a grant of unknown token)" : s;
  }

  @Override
  public boolean omittableWhenIndeterminate(Op op) {
    return switch (op.f().name()) {
      case "read", "read-token", "resign", "release" -> true;
      default -> false;
    };
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FencedRegister r && Objects.equals(last, r.last)
        && unknownAbove == r.unknownAbove && Objects.equals(holder, r.holder);
  }

  @Override
  public int hashCode() {
    return Objects.hash(last, unknownAbove, holder);
  }

  @Override
  public String toString() {
    return "fenced register: " + describe();
  }
}
