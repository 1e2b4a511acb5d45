package io.regent.jepsen.checker;

import io.regent.jepsen.history.Op;

/**
 * A sequential specification: an immutable state machine stepped by operations, as in Herlihy and
 * Wing's definition of linearizability (1990) and Knossos's {@code Model} protocol.
 *
 * <p>Implementations must be immutable and implement {@code equals}/{@code hashCode} by state, because
 * the checker memoizes (linearized-set, model-state) configurations (Lowe 2017).
 */
public interface Model {

  /**
   * Applies one operation. The op is the operation's effective event (for an {@code :ok} operation
   * its completion, so a read carries the value observed; otherwise its invoke, with type {@code
   * :invoke}).
   *
   * @return the model after the operation, or {@link #inconsistent(String)} if the operation cannot
   *     happen in this state
   * @throws IllegalArgumentException for an {@code :f} the model does not know
   */
  Model step(Op op);

  /** True for the result of {@link #inconsistent(String)}. */
  default boolean isInconsistent() {
    return false;
  }

  /**
   * True if an operation with this effective op, whose outcome is unknown ({@code :info} or never
   * completed), can be left out of the search: whether or when it took effect cannot change the
   * state (a read whose result nobody saw). Default false.
   */
  default boolean omittableWhenIndeterminate(Op op) {
    return false;
  }

  /** The model that stands for "this operation could not have happened here", with a reason. */
  static Model inconsistent(String reason) {
    return new Inconsistent(reason);
  }

  /** An inconsistent model; stepping it changes nothing. */
  record Inconsistent(String reason) implements Model {
    @Override
    public Model step(Op op) {
      return this;
    }

    @Override
    public boolean isInconsistent() {
      return true;
    }
  }
}
