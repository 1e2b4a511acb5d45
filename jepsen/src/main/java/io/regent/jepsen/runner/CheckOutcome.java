package io.regent.jepsen.runner;

import io.regent.jepsen.checker.Verdict;
import java.util.List;
import java.util.Map;

/**
 * What one checker said about a history.
 *
 * @param checker the checker's name: {@code linearizable}, {@code exclusivity} or {@code ledger}
 * @param verdict valid, invalid or unknown
 * @param explanation one or a few sentences; for INVALID the first anomaly
 * @param stats counts (operations, keys, intervals, entries...)
 * @param anomaly the ops (as EDN lines) or intervals involved in the first anomaly; empty if none
 */
public record CheckOutcome(String checker, Verdict verdict, String explanation, Map<String, Object> stats,
    List<String> anomaly) {

  /** Copies the collections. */
  public CheckOutcome {
    stats = Map.copyOf(stats);
    anomaly = List.copyOf(anomaly);
  }

  /** The combined verdict: INVALID if any is, else UNKNOWN if any is (or none ran), else VALID. */
  public static Verdict overall(List<CheckOutcome> outcomes) {
    if (outcomes.stream().anyMatch(o -> o.verdict() == Verdict.INVALID)) {
      return Verdict.INVALID;
    }
    if (outcomes.isEmpty() || outcomes.stream().anyMatch(o -> o.verdict() == Verdict.UNKNOWN)) {
      return Verdict.UNKNOWN;
    }
    return Verdict.VALID;
  }
}
