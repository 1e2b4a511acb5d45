package io.regent.server.confirm;

import io.regent.statemachine.apply.ConfirmRead;
import io.regent.statemachine.proto.Confirm;
import io.regent.statemachine.proto.LeaseStatus;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.replica.LeaseTimekeeper;
import io.regent.statemachine.replica.ApplyEffects;
import io.regent.statemachine.replica.ReplicaView;
import java.util.function.LongSupplier;

/**
 * Answers a Confirm on the leader under its leadership lease, without a log entry: the Confirm's read
 * ({@link ConfirmRead}, what apply answers for a Confirm entry) runs against the leader's replica in a read
 * transaction, and the lease clock renews and measures its leases as it would at apply. It answers only when the leader has applied everything it
 * had committed when the request arrived: a write a follower acknowledged (after applying it) is committed on
 * the leader, but the leader's own apply may still lag behind it, and an answer from before that write would
 * not be linearizable (the same reason a Raft ReadIndex waits for the apply index to reach the commit index,
 * Raft thesis §6.4). "Applied" is counted as Ratis counts it ({@link ReplicaView#appliedIndex()}), configuration
 * entries included: the index stored with the LMDB state counts only the entries the state machine applies, so
 * after a new leader's startup entry or a membership change it stays below the commit index until another write
 * comes, and every confirm would take a log round meanwhile (issue #22 item 7).
 */
public final class LocalConfirm {
  private final ReplicaView replica;
  private final LeaseTimekeeper timekeeper;
  private final LongSupplier commitIndex;

  /**
   * @param replica the leader's state
   * @param timekeeper the leader's lease clock
   * @param commitIndex the local Raft log's commit index now ({@code Long.MAX_VALUE} when unknown: no answer)
   */
  public LocalConfirm(ReplicaView replica, LeaseTimekeeper timekeeper, LongSupplier commitIndex) {
    this.replica = replica;
    this.timekeeper = timekeeper;
    this.commitIndex = commitIndex;
  }

  /**
   * Answers {@code confirm} locally, as the ready leader of {@code term}, at the replica's applied index.
   *
   * @return the round, or {@code null} when the lease clock cannot vouch for a lease it renews (it is not ready
   *     in {@code term} yet), a renewed lease carries a checkpoint only a committed entry may clear
   *     (docs/architecture.md §3.8), or the replica has not applied the commit index yet: then a Confirm round
   *     is needed
   */
  public Confirmation confirm(long term, Confirm.Builder confirm) {
    for (long id : confirm.getRenewLeaseIdsList()) {
      if (timekeeper.checkpointed(id)) {
        return null;
      }
    }
    Confirm request = confirm.build();
    long committed = commitIndex.getAsLong();
    // read before the transaction starts: every state change up to it is then in the transaction's snapshot
    if (replica.appliedIndex() < committed) {
      return null;
    }
    Result result = replica.read(txn -> {
      ConfirmRead.Answer read = ConfirmRead.read(txn, request, txn.appliedIndex(), term);
      return ApplyEffects.measured(timekeeper, read.result(), read.renewed(), read.queried(), term);
    });
    if (result == null) {
      return null;
    }
    for (LeaseStatus s : result.getLeasesList()) {
      if (s.getAlive() && s.getRemainingMs() < 0) {
        return null;
      }
    }
    return Confirmation.of(result);
  }
}
