package io.regent.jepsen.checker;

import io.regent.jepsen.history.History;
import io.regent.jepsen.history.Operation;
import java.util.ArrayList;
import java.util.List;

/**
 * A deliberately naive linearizability decision procedure for tiny histories, used as a test oracle:
 * it tries every order of the operations that respects real-time order, with no memoization, no
 * pruning, no omission of unseen reads and no per-key split. {@code :fail} operations are left out;
 * {@code :info}/open operations may be placed (after every {@code :ok} operation that completed
 * before their invoke) or left out.
 */
final class BruteForceOracle {
  private final List<Operation> ops = new ArrayList<>();
  private final boolean[] used;

  private BruteForceOracle(History h) {
    for (Operation o : h.operations()) {
      if (o.outcome() != Operation.Outcome.FAIL) {
        ops.add(o);
      }
    }
    used = new boolean[ops.size()];
  }

  /** True if the history is linearizable for the model. */
  static boolean linearizable(History h, Model initial) {
    return new BruteForceOracle(h).search(initial);
  }

  private boolean search(Model state) {
    boolean allOkPlaced = true;
    for (int i = 0; i < ops.size(); i++) {
      if (!used[i] && ops.get(i).outcome() == Operation.Outcome.OK) {
        allOkPlaced = false;
      }
    }
    if (allOkPlaced) {
      return true;
    }
    for (int i = 0; i < ops.size(); i++) {
      if (used[i] || !minimal(i)) {
        continue;
      }
      Model next = state.step(ops.get(i).effective());
      if (next.isInconsistent()) {
        continue;
      }
      used[i] = true;
      boolean found = search(next);
      used[i] = false;
      if (found) {
        return true;
      }
    }
    return false;
  }

  /** No unplaced :ok operation completed before op i was invoked. */
  private boolean minimal(int i) {
    int invoked = ops.get(i).invokeIndex();
    for (int j = 0; j < ops.size(); j++) {
      Operation o = ops.get(j);
      if (!used[j] && j != i && o.outcome() == Operation.Outcome.OK
          && o.completionIndex() < invoked) {
        return false;
      }
    }
    return true;
  }
}
