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

  /** The events and applied index of this node's applies. */
  EventHub hub();
}
