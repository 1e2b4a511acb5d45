package io.regent.jepsen.checker;

import io.regent.jepsen.history.Op;

/**
 * Knossos's {@code mutex} model: a lock, initially free. {@code :acquire} requires it free and takes
 * it; {@code :release} requires it held and frees it. (As in Knossos, the model does not track who
 * holds it.)
 */
public final class Mutex implements Model {
  private static final Mutex FREE = new Mutex(false);
  private static final Mutex HELD = new Mutex(true);

  private final boolean locked;

  private Mutex(boolean locked) {
    this.locked = locked;
  }

  /** The free mutex. */
  public static Mutex initial() {
    return FREE;
  }

  /** True if held. */
  public boolean locked() {
    return locked;
  }

  @Override
  public Model step(Op op) {
    return switch (op.f().name()) {
      case "acquire" -> locked ? Model.inconsistent("can't acquire a held mutex") : HELD;
      case "release" -> locked ? FREE : Model.inconsistent("can't release a free mutex");
      default -> throw new IllegalArgumentException("mutex has no :f " + op.f());
    };
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Mutex m && m.locked == locked;
  }

  @Override
  public int hashCode() {
    return locked ? 1231 : 1237;
  }

  @Override
  public String toString() {
    return locked ? "mutex held" : "mutex free";
  }
}
