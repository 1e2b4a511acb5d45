package io.regent.jepsen.checker;

import io.regent.jepsen.history.History;
import io.regent.jepsen.history.Operation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Checks a history for linearizability (Herlihy and Wing 1990) against a {@link Model}.
 *
 * <ol>
 *   <li>Preparation, with Knossos's semantics: operations that completed {@code :fail} are removed
 *       (they did not happen); {@code :ok} operations must take effect between invoke and completion,
 *       with the completion's value; {@code :info} or never-completed operations may take effect at
 *       any point after their invoke, or never. Open operations the model calls omittable (unseen
 *       reads) are dropped.
 *   <li>Per-key decomposition: operations carrying a {@code :key} are split into one sub-history per
 *       key, each checked against a fresh model. Linearizability is local (Herlihy and Wing 1990), and
 *       Horn and Kroening ("Faster linearizability checking via P-compositionality", FORTE 2015) use
 *       this to shrink the search; a history is linearizable iff every sub-history is.
 *   <li>Each sub-history is searched by {@link WglSearch}: Wing and Gong (1993) with Lowe's (2017)
 *       memoization of configurations.
 *   <li>A {@link Budget} of time and configurations bounds the work; running out yields {@link
 *       Verdict#UNKNOWN}, never a guessed verdict.
 *   <li>A history with nothing to search (no operation, or only failed ones and unseen reads) is
 *       linearizable, as in Knossos, but only vacuously: its {@link Result#keys()} is 0 and its
 *       explanation says so, so that a caller can refuse to pass on nothing. An INVALID sub-history makes the whole history
 *       INVALID even if another sub-history was left unknown.
 * </ol>
 *
 * <p>A checker holds no mutable state; one instance may check several histories, also concurrently.
 */
public final class LinearizabilityChecker {
  private final Model initial;
  private final Budget budget;

  /**
   * A checker.
   *
   * @param initial the model's initial state (immutable, so shared by all keys)
   * @param budget the time and configuration limits
   */
  public LinearizabilityChecker(Model initial, Budget budget) {
    this.initial = Objects.requireNonNull(initial, "initial");
    this.budget = Objects.requireNonNull(budget, "budget");
  }

  /** A checker with {@link Budget#DEFAULT}. */
  public LinearizabilityChecker(Model initial) {
    this(initial, Budget.DEFAULT);
  }

  /** Checks the history. */
  public Result check(History history) {
    long start = System.nanoTime();
    long deadline = start + budget.time().toNanos();
    Model model = initial;
    Map<Object, List<Operation>> byKey = new LinkedHashMap<>();
    for (Operation o : history.operations()) {
      if (o.outcome() == Operation.Outcome.FAIL) {
        continue;
      }
      if (o.outcome() == Operation.Outcome.INDETERMINATE
          && model.omittableWhenIndeterminate(o.effective())) {
        continue;
      }
      byKey.computeIfAbsent(new KeyBox(o.key()), k -> new ArrayList<>()).add(o);
    }
    int opCount = history.operations().size();
    if (byKey.isEmpty()) {
      return new Result(Verdict.VALID, opCount, 0, nothingToCheck(opCount), List.of(), 0,
          elapsed(start));
    }
    int keys = byKey.size();
    long configurations = 0;
    List<String> unknown = new ArrayList<>();
    for (Map.Entry<Object, List<Operation>> e : byKey.entrySet()) {
      long left = budget.maxConfigurations() - configurations;
      if (left <= 0 || System.nanoTime() - deadline > 0) {
        unknown.add("key " + e.getKey() + ": not checked, budget exhausted");
        continue;
      }
      WglSearch.Outcome out = new WglSearch(e.getValue()).run(model, deadline, left);
      configurations += out.configurations();
      if (out.verdict() == Verdict.INVALID) {
        String where = keys > 1 ? "key " + e.getKey() + ": " : "";
        return new Result(Verdict.INVALID, opCount, keys, where + out.explanation(), out.ops(),
            configurations, elapsed(start));
      }
      if (out.verdict() == Verdict.UNKNOWN) {
        unknown.add((keys > 1 ? "key " + e.getKey() + ": " : "") + out.explanation());
      }
    }
    if (!unknown.isEmpty()) {
      return new Result(Verdict.UNKNOWN, opCount, keys,
          "undecided: " + String.join("; ", unknown), List.of(), configurations, elapsed(start));
    }
    return new Result(Verdict.VALID, opCount, keys,
        "linearizable (" + opCount + " operations, " + keys + " key(s))", List.of(), configurations,
        elapsed(start));
  }

  /** Why a history with no operation left to search is linearizable only vacuously. */
  private static String nothingToCheck(int opCount) {
    return opCount == 0 ? "vacuously linearizable, nothing to check: the history has no client operation"
        : "vacuously linearizable, nothing to check: each of the " + opCount
            + " operations failed or is an unseen read (nothing that took effect)";
  }

  private static Duration elapsed(long start) {
    return Duration.ofNanos(System.nanoTime() - start);
  }

  /** A map key that admits {@code null} and prints as EDN. */
  private record KeyBox(Object key) {
    @Override
    public String toString() {
      return io.regent.jepsen.history.EdnWriter.writeValue(key);
    }
  }
}
