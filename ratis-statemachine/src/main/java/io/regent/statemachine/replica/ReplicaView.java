package io.regent.statemachine.replica;

import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.store.StateTxn;
import java.util.function.Function;

/**
 * Read access to one node's copy of the replicated state and to the events of its applies: what the API
 * layer needs, whether the state is replicated by Raft or kept by a single writer.
 */
public interface ReplicaView {
  /** Runs {@code body} against this node's state in a read transaction (possibly behind the leader). */
  <T> T read(Function<StateTxn, T> body);

  /**
   * The index up to which this replica has applied its log, entries that change no state included: Raft
   * configuration entries, which Ratis applies without the state machine and so without raising the applied
   * index stored with the state ({@link StateTxn#appliedIndex()}). Every state change at or below it is visible
   * to a read that starts after this call. Defaults to the stored index (a log without such entries).
   */
  default long appliedIndex() {
    return read(StateTxn::appliedIndex);
  }

  /** The events and applied index of this node's applies. */
  EventHub hub();
}
