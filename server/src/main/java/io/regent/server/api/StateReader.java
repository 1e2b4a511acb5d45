package io.regent.server.api;

import io.regent.server.raft.Confirmer;
import io.regent.statemachine.replica.ReplicaView;
import io.regent.statemachine.store.StateTxn;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Reads of the replicated state from this node: linearizable by default (a confirmation round begun after
 * the read arrived, then the local replica caught up to it), or serializable (local, possibly stale).
 */
final class StateReader {
  private final Confirmer confirmer;
  private final ReplicaView stateMachine;

  StateReader(Confirmer confirmer, ReplicaView stateMachine) {
    this.confirmer = confirmer;
    this.stateMachine = stateMachine;
  }

  /** Reads with {@code body} after a confirmation round, or at once when {@code serializable}. */
  <T> CompletableFuture<T> read(boolean serializable, Function<StateTxn, T> body) {
    if (serializable) {
      return CompletableFuture.supplyAsync(() -> stateMachine.read(body));
    }
    return confirmer.confirm(List.of(), List.of())
        .thenCompose(r -> stateMachine.hub().awaitApplied(r.getIndex()))
        .thenApply(applied -> stateMachine.read(body));
  }

  /** Reads the local replica at once (callers make sure it has applied what they need). */
  <T> T local(Function<StateTxn, T> body) {
    return stateMachine.read(body);
  }

  /** Waits until the local replica has applied {@code index}. */
  CompletableFuture<Long> awaitApplied(long index) {
    return stateMachine.hub().awaitApplied(index);
  }
}
