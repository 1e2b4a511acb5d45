package io.regent.jepsen.checker;

import io.regent.jepsen.history.EdnWriter;
import io.regent.jepsen.history.Op;
import java.util.List;
import java.util.Objects;

/**
 * Knossos's {@code cas-register} model: a single register, initially {@code nil}, with
 *
 * <ul>
 *   <li>{@code :read} — an {@code :ok} read must observe the current value ({@code nil} included: an
 *       {@code :ok} read of {@code nil} means the register was {@code nil}); a read whose result was
 *       never seen constrains nothing and is left out;
 *   <li>{@code :write v} — sets the value;
 *   <li>{@code :cas [old new]} — sets {@code new} if the value is {@code old}, else cannot happen.
 * </ul>
 *
 * Operations that completed {@code :fail} are removed before the search (they did not happen).
 * One deliberate difference from Knossos: Knossos lets an {@code :ok} read with a {@code nil} value
 * match any state; here it must match {@code nil}.
 */
public final class CasRegister implements Model {
  private final Object value;

  private CasRegister(Object value) {
    this.value = value;
  }

  /** The register holding {@code nil}. */
  public static CasRegister initial() {
    return new CasRegister(null);
  }

  /** A register holding the given value. */
  public static CasRegister of(Object value) {
    return new CasRegister(value);
  }

  /** The current value. */
  public Object value() {
    return value;
  }

  @Override
  public Model step(Op op) {
    switch (op.f().name()) {
      case "read": {
        if (op.type() != Op.Type.OK || Objects.equals(value, op.value())) {
          return this;
        }
        return Model.inconsistent("can't read " + show(op.value()) + " from register " + show(value));
      }
      case "write":
        return Objects.equals(value, op.value()) ? this : new CasRegister(op.value());
      case "cas": {
        if (!(op.value() instanceof List<?> pair) || pair.size() != 2) {
          throw new IllegalArgumentException(":cas needs a value [old new], got " + op);
        }
        if (!Objects.equals(value, pair.get(0))) {
          return Model.inconsistent("can't CAS " + show(value) + " from " + show(pair.get(0))
              + " to " + show(pair.get(1)));
        }
        return Objects.equals(value, pair.get(1)) ? this : new CasRegister(pair.get(1));
      }
      default:
        throw new IllegalArgumentException("cas-register has no :f " + op.f());
    }
  }

  @Override
  public boolean omittableWhenIndeterminate(Op op) {
    return op.f().name().equals("read");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CasRegister r && Objects.equals(value, r.value);
  }

  @Override
  public int hashCode() {
    return Objects.hashCode(value) * 0x9E3779B1;
  }

  @Override
  public String toString() {
    return "register " + show(value);
  }

  private static String show(Object v) {
    return EdnWriter.writeValue(v);
  }
}
