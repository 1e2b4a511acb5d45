package io.regent.jepsen.checker;

import io.regent.jepsen.history.Operation;
import java.time.Duration;
import java.util.List;

/**
 * The outcome of a linearizability check.
 *
 * @param verdict valid, invalid, or unknown (budget exhausted)
 * @param opCount client operations in the history (invokes, whatever their outcome)
 * @param keys independent sub-histories checked (1 when ops carry no {@code :key}, 0 when no operation
 *     was left to check)
 * @param explanation for INVALID: the longest linearizable prefix and the operation that could not be
 *     linearized after it; for UNKNOWN: which budget ran out; for VALID: a one-line summary
 * @param ops the operations involved in an INVALID verdict (the op that could not be linearized first,
 *     then the pending ops tried instead, then the end of the linearizable prefix); empty otherwise
 * @param configurations memoized configurations explored
 * @param elapsed wall time of the check
 */
public record Result(Verdict verdict, int opCount, int keys, String explanation,
    List<Operation> ops, long configurations, Duration elapsed) {

  /** Copies the op list. */
  public Result {
    ops = List.copyOf(ops);
  }

  /** True if the verdict is VALID. */
  public boolean isValid() {
    return verdict == Verdict.VALID;
  }

  @Override
  public String toString() {
    return verdict + " (" + opCount + " ops, " + keys + " key(s), " + configurations
        + " configurations, " + elapsed.toMillis() + " ms): " + explanation;
  }
}
