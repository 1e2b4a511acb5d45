package io.regent.server.api;

import io.grpc.Status;
import io.regent.server.confirm.Confirmer;
import io.regent.statemachine.proto.Holder;
import io.regent.statemachine.proto.NameHolder;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.replica.ReplicaView;
import io.regent.statemachine.store.StateTxn;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Reads of the replicated state from this node: linearizable by default (the leader's leadership lease, or a
 * confirmation round begun after the read arrived, then the local replica caught up to it), or serializable
 * (local, possibly stale). The API's reads and the etcd port's KV ranges (docs/migrating.md "etcd's KV") both read
 * through it.
 */
public final class StateReader {
  /** Where serializable reads ask whether this node has replayed what was committed before it started. */
  public interface Replay {
    /** {@link HealthReporter#replayed}. */
    boolean replayed();

    /** {@link HealthReporter#replayTarget}. */
    long replayTarget();
  }

  private final Confirmer confirmer;
  private final ReplicaView stateMachine;
  private final Executor blocking;
  private final Replay replay;

  /**
   * @param blocking the node's blocking pool: local LMDB reads run there, neither on the caller's gRPC thread
   *     nor on the apply thread that completes the wait for an index
   */
  public StateReader(Confirmer confirmer, ReplicaView stateMachine, Executor blocking, Replay replay) {
    this.confirmer = confirmer;
    this.stateMachine = stateMachine;
    this.blocking = blocking;
    this.replay = replay;
  }

  /**
   * Reads with {@code body} after a confirmation round, or at once when {@code serializable}. The future fails with
   * the confirmation's failure (no leader, no quorum) or, for a full blocking pool, a RejectedExecutionException.
   */
  public <T> CompletableFuture<T> read(boolean serializable, Function<StateTxn, T> body) {
    if (serializable) {
      return onPool(() -> stateMachine.read(body));
    }
    return confirmer.confirm(List.of(), List.of())
        .thenCompose(r -> stateMachine.hub().awaitApplied(r.getIndex()))
        .thenApplyAsync(applied -> stateMachine.read(body), blocking);
  }

  /**
   * The holder of {@code name}: as of a confirmation round begun after this call, taken from that round's
   * reply (so a follower does not wait to learn the round's commit), or from the local replica at once when
   * {@code serializable}. A round that was full ({@link Confirmer#MAX_NAMES_PER_ROUND}) did not carry the
   * name: then the local replica is read once it has applied the round, as {@link #read} does.
   *
   * @return the holder (empty when the name has none) and the log index the answer reflects: the round's
   *     entry, or the local replica's applied index
   */
  CompletableFuture<AtIndex<Optional<Holder>>> holder(boolean serializable, String name) {
    if (serializable) {
      return onPool(() -> stateMachine.read(txn -> localHolder(txn, name)));
    }
    return confirmer.confirmNames(List.of(name)).thenCompose(c -> {
      NameHolder answer = c.names().get(name);
      if (answer != null) {
        return CompletableFuture.completedFuture(new AtIndex<>(
            answer.hasHolder() ? Optional.of(answer.getHolder()) : Optional.<Holder>empty(), c.result().getIndex()));
      }
      return stateMachine.hub().awaitApplied(c.result().getIndex())
          .thenApplyAsync(applied -> stateMachine.read(txn -> localHolder(txn, name)), blocking);
    });
  }

  /**
   * A value read from the replicated state and the log index it reflects.
   *
   * @param index the applied index of the state it was read from (or of the confirmation round that carried it)
   */
  record AtIndex<T>(T value, long index) {
  }

  /**
   * Runs the serializable {@code read} on the blocking pool; a full pool fails the future (RESOURCE_EXHAUSTED), never
   * the caller. Until this node has replayed what was committed before it started ({@link Replay}), fails it with
   * UNAVAILABLE "replaying …" instead: the client tries the next node (docs/operations.md "Restarts").
   */
  private <T> CompletableFuture<T> onPool(Supplier<T> read) {
    if (!replay.replayed()) {
      long target = replay.replayTarget();
      return CompletableFuture.failedFuture(Status.UNAVAILABLE.withDescription("replaying: this node has applied "
          + "index " + stateMachine.appliedIndex() + (target < 0 ? " and knows no leader yet" : " of the " + target
          + " committed when it learnt of the leader") + "; it answers serializable reads once it has caught up")
          .asRuntimeException());
    }
    try {
      return CompletableFuture.supplyAsync(read, blocking);
    } catch (RejectedExecutionException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private static AtIndex<Optional<Holder>> localHolder(StateTxn txn, String name) {
    NameRecord rec = txn.name(name);
    return new AtIndex<>(rec != null && rec.hasHolder() ? Optional.of(rec.getHolder()) : Optional.empty(),
        txn.appliedIndex());
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
