package io.regent.statemachine.ratis;

import io.regent.statemachine.apply.ApplyOutcome;
import io.regent.statemachine.proto.LogEntry;

/**
 * Watches each applied entry from outside the state machine, for metrics. Called on Ratis's apply thread,
 * in log order, after the entry's LMDB transaction committed and its effects ran; it must be quick and must
 * not throw. It sees what apply did but cannot change it.
 */
@FunctionalInterface
public interface ApplyObserver {
  /**
   * @param command the decoded entry
   * @param outcome what applying it produced, or {@code null} when it was skipped as a replay of what LMDB
   *     already holds
   * @param nanos time from the start of its LMDB write transaction to the end of its effects, ns (a
   *     monotonic measurement for metrics only: no apply decision depends on it)
   */
  void applied(LogEntry command, ApplyOutcome outcome, long nanos);

  /** Watches nothing. */
  ApplyObserver NONE = (command, outcome, nanos) -> { };
}
