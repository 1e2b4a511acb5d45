package io.regent.jepsen.checker;

import io.regent.jepsen.history.Operation;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the search got furthest before failing: the longest linearizable prefix found, the state it
 * leaves, the completed operation that could not be linearized after it, and the operations that were
 * still pending there. This follows how Knossos reports a failure (the final configurations and the
 * operation that could not be linearized), in Regent's own words.
 *
 * @param prefixLength operations in the longest linearizable prefix
 * @param prefixTail the last few operations of that prefix, in linearization order
 * @param state the model state after the prefix
 * @param blocker the {@code :ok} operation whose completion came before it could be linearized
 * @param pending operations invoked before the blocker completed and not in the prefix
 */
record Counterexample(int prefixLength, List<Operation> prefixTail, Model state, Operation blocker,
    List<Operation> pending) {

  /** The explanation sentence(s) for {@link Result#explanation()}. */
  String explain() {
    StringBuilder b = new StringBuilder();
    b.append("not linearizable: the longest linearizable prefix has ").append(prefixLength)
        .append(" operation(s) and leaves ").append(state);
    if (!prefixTail.isEmpty()) {
      b.append(" (it ends with ").append(prefixTail.get(prefixTail.size() - 1)).append(')');
    }
    b.append("; then ").append(blocker).append(" completed but cannot be linearized: ");
    Model own = state.step(blocker.effective());
    b.append(own instanceof Model.Inconsistent i ? i.reason() : "every continuation from here was already found to fail");
    List<String> others = new ArrayList<>();
    for (Operation p : pending) {
      if (p.id() == blocker.id()) {
        continue;
      }
      Model m = state.step(p.effective());
      others.add(p + (m instanceof Model.Inconsistent i ? " (" + i.reason() + ")" : ""));
    }
    if (!others.isEmpty()) {
      b.append("; pending at that point: ").append(String.join("; ", others));
    }
    return b.toString();
  }

  /** The ops involved: the blocker, the pending ops, then the end of the prefix. */
  List<Operation> involved() {
    List<Operation> out = new ArrayList<>();
    out.add(blocker);
    for (Operation p : pending) {
      if (p.id() != blocker.id()) {
        out.add(p);
      }
    }
    out.addAll(prefixTail);
    return out;
  }
}
