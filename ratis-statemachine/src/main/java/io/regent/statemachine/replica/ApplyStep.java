package io.regent.statemachine.replica;

import io.regent.statemachine.apply.Applier;
import io.regent.statemachine.apply.ApplyOutcome;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.store.RegentStore;

/**
 * Applies the entry at one index of the log to a replica's state: the step the Raft state machine and the
 * single-writer node share, so both apply alike (docs/architecture.md §2.3, §9). One write transaction holds the
 * entry's effects on the state and its index as the applied index, so an entry is never applied twice; what
 * follows the commit on the node is {@link ApplyEffects}'s.
 */
public final class ApplyStep {
  private ApplyStep() {
  }

  /**
   * In one write transaction of {@code store}: unless {@code index} is at or below the applied index (a replay
   * after a restart, whose effects the state already holds), applies {@code entry} ({@link Applier}) and
   * records {@code index} as applied; then commits. Call from the store's one writing thread.
   *
   * @param entry the entry found at {@code index}, decoded
   * @param index its log index (&gt;= 1)
   * @param term its term
   * @param unsafeSkipRelease TESTS ONLY: apply with the release rule of ownership groups skipped ({@link
   *     Applier#apply(io.regent.statemachine.store.StateTxn, LogEntry, long, long, boolean)}); every replica of a
   *     log must pass the same value
   * @param leaseIdBase what the cell's lease ids start from (0: cell 0, or a node without cells)
   * @return what applying produced, or {@code null} when the entry was skipped as a replay (nothing written)
   */
  public static ApplyOutcome commit(RegentStore store, LogEntry entry, long index, long term,
                                    boolean unsafeSkipRelease, long leaseIdBase) {
    return store.write(txn -> {
      if (index <= txn.appliedIndex()) {
        return null;
      }
      ApplyOutcome out = Applier.apply(txn, entry, index, term, unsafeSkipRelease, leaseIdBase);
      txn.setAppliedIndex(index);
      return out;
    });
  }
}
