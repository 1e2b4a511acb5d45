package io.regent.server.raft;

import io.regent.statemachine.apply.Applier;
import io.regent.statemachine.apply.ApplyOutcome;
import io.regent.statemachine.apply.EntryCodec;
import io.regent.statemachine.proto.Confirm;
import io.regent.statemachine.proto.LeaseStatus;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.ratis.LeaseTimekeeper;
import io.regent.statemachine.replica.ApplyEffects;
import io.regent.statemachine.replica.ReplicaView;

/**
 * Answers a Confirm on the leader under its leadership lease, without a log entry: the entry's apply logic
 * runs against the leader's replica in a read transaction (it changes no state), and the lease clock renews
 * and measures its leases as it would at apply. The leader has applied every entry it acknowledged, so its
 * replica reflects every write acknowledged before the request arrived.
 */
public final class LocalConfirm {
  private final ReplicaView replica;
  private final LeaseTimekeeper timekeeper;

  /**
   * @param replica the leader's state
   * @param timekeeper the leader's lease clock
   */
  public LocalConfirm(ReplicaView replica, LeaseTimekeeper timekeeper) {
    this.replica = replica;
    this.timekeeper = timekeeper;
  }

  /**
   * Applies {@code confirm} locally, as the ready leader of {@code term}, at the replica's applied index.
   *
   * @return the round, or {@code null} when the lease clock cannot vouch for a lease it renews (it is not ready
   *     in {@code term} yet) or a renewed lease carries a checkpoint only a committed entry may clear
   *     (docs/architecture.md §3.8): then a Confirm round is needed
   */
  public Confirmation confirm(long term, Confirm.Builder confirm) {
    for (long id : confirm.getRenewLeaseIdsList()) {
      if (timekeeper.checkpointed(id)) {
        return null;
      }
    }
    LogEntry entry = LogEntry.newBuilder().setVersion(EntryCodec.VERSION).setConfirm(confirm).build();
    Result result = replica.read(txn -> {
      ApplyOutcome out = Applier.apply(txn, entry, txn.appliedIndex(), term);
      return ApplyEffects.measured(timekeeper, out, term);
    });
    for (LeaseStatus s : result.getLeasesList()) {
      if (s.getAlive() && s.getRemainingMs() < 0) {
        return null;
      }
    }
    return Confirmation.of(result);
  }
}
