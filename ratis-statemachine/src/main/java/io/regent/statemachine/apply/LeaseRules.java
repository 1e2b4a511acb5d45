package io.regent.statemachine.apply;

import static io.regent.statemachine.apply.Results.error;

import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.ChangeEvent.Kind;
import io.regent.statemachine.kv.KvRules;
import io.regent.statemachine.limits.Limits;
import io.regent.statemachine.proto.Checkpoint;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.Confirm;
import io.regent.statemachine.proto.LeaseCheckpoint;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.store.StateTxn;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The lease rules of apply: grant, revoke, expire, the keepalive a Confirm entry records, and checkpoints
 * (docs/architecture.md §2.2, §3); and how a lease ends, for every entry that ends one. Lease ids are unique and
 * increasing; a lease's time is never read here, only the terms and indexes in the entry.
 *
 * <p>Not thread-safe: one instance per rule applied, on the apply thread.
 */
final class LeaseRules {
  private final ApplyContext at;
  private final StateTxn txn;

  LeaseRules(ApplyContext at) {
    this.at = at;
    this.txn = at.txn();
  }

  /** Grants a lease of {@code ttlMs} (unless {@link #refuseGrant} refuses); the result carries its id. */
  Result.Builder grant(long ttlMs, long maxLeases) {
    Result.Builder refusal = refuseGrant(ttlMs, maxLeases);
    if (refusal != null) {
      return refusal;
    }
    return Result.newBuilder().setLeaseId(grantNow(ttlMs).getId());
  }

  /** Stores a new lease of {@code ttlMs} with the next id ({@link #nextLeaseId}) and records the grant. */
  LeaseRecord grantNow(long ttlMs) {
    LeaseRecord granted = LeaseRecord.newBuilder().setId(nextLeaseId()).setTtlMs(ttlMs).build();
    txn.putLease(granted);
    at.effects().granted(granted);
    return granted;
  }

  /**
   * The id of a lease this entry grants now: the entry's index, unless an earlier operation of the same batch
   * entry took it — then one above the largest id granted so far (docs/architecture.md §2.2). Unique and
   * increasing; in a log without batch entries always the index, as before.
   */
  long peekLeaseId() {
    return Math.max(at.leaseIdBase() + at.index(), txn.lastLeaseId() + 1);
  }

  /** Takes {@link #peekLeaseId()} for a lease being stored. */
  private long nextLeaseId() {
    long id = peekLeaseId();
    txn.setLastLeaseId(id);
    return id;
  }

  /** Why a lease of {@code ttlMs} may not be granted now, or {@code null} when it may. */
  Result.Builder refuseGrant(long ttlMs, long maxLeases) {
    if (ttlMs <= 0 || ttlMs > Limits.MAX_TTL_MS) {
      return error(Code.INVALID_ARGUMENT, "ttl " + ttlMs + " ms outside (0, " + Limits.MAX_TTL_MS + "]");
    }
    if (maxLeases > 0 && txn.leaseCount() >= maxLeases) {
      return error(Code.RESOURCE_EXHAUSTED, "the cluster holds " + txn.leaseCount()
          + " leases, its limit (--max-leases " + maxLeases + "); revoke some first");
    }
    return null;
  }

  /** Ends lease {@code leaseId} at its holder's request; {@link Code#NOT_FOUND} when it is gone. */
  Result.Builder revoke(long leaseId) {
    LeaseRecord lease = txn.lease(leaseId);
    if (lease == null) {
      return error(Code.NOT_FOUND, "lease " + leaseId + " not found");
    }
    end(List.of(lease), Kind.REVOKED);
    return Result.newBuilder().setLeaseId(leaseId);
  }

  /** Ends the leases of {@code ids} still alive, in id order, as the leader of {@code proposerTerm} decided. */
  Result.Builder expire(List<Long> ids, long proposerTerm) {
    if (proposerTerm != at.term()) {
      // Decided by the leader of another term: its clock no longer speaks for the cluster (docs/architecture.md §3.2).
      return error(Code.FAILED_PRECONDITION, "expiry decided in term " + proposerTerm + ", applied in " + at.term());
    }
    List<LeaseRecord> live = new ArrayList<>();
    for (long id : new TreeSet<>(ids)) {
      LeaseRecord lease = txn.lease(id);
      if (lease != null) {
        live.add(lease);
      }
    }
    end(live, Kind.EXPIRED);
    return Result.newBuilder();
  }

  /**
   * Ends leases in two phases so that no lease ending in this entry is promoted by it: first every
   * candidacy of an ending lease is withdrawn, then the names they hold are freed and passed on.
   */
  void end(List<LeaseRecord> leases, Kind kind) {
    at.groups().leasesEnded(leases);
    // etcd's keys of a lease go with it, in this entry
    new KvRules(txn, at.index(), at.effects().events()).leasesEnded(leases);
    Succession names = new Succession(at);
    names.withdrawCandidacies(leases);
    for (LeaseRecord lease : leases) {
      names.freeHeldBy(lease, kind);
      txn.deleteLease(lease.getId());
      at.effects().ended(lease.getId());
      at.effects().event(new ChangeEvent(Kind.LEASE_ENDED, "", null, at.index(), lease.getId()));
    }
  }

  /**
   * Writes what a Confirm entry changes, then answers what it reads ({@link ConfirmRead}) from the state after
   * that write, as the leader's local answer reads it without an entry.
   */
  Result.Builder confirm(Confirm c) {
    for (long id : c.getRenewLeaseIdsList()) {
      LeaseRecord lease = txn.lease(id);
      if (lease != null && lease.getTtlMs() >= Limits.CHECKPOINT_MIN_TTL_MS) {
        // The keepalive is acknowledged after this entry: no successor may resume from an older checkpoint.
        // (Answered under the leadership lease, with no entry, a Confirm writes nothing: the lease clock sends
        // the renewal of a checkpointed lease through an entry instead, LocalConfirm.)
        txn.putLease(lease.toBuilder().setCheckpointRemainingMs(0).setRenewedIndex(at.index()).build());
      }
    }
    ConfirmRead.Answer read = ConfirmRead.read(txn, c, at.index(), at.term());
    at.effects().confirmed(read);
    return read.result().toBuilder();
  }

  /**
   * Records the remaining time the leader of {@code c}'s term measured for long leases, so that a successor
   * resumes them from there; a checkpoint older than the lease's last renewal is ignored (docs/architecture.md
   * §3.8, rules 4 and 5).
   */
  Result.Builder checkpoint(LeaseCheckpoint c) {
    if (c.getProposerTerm() != at.term()) {
      return error(Code.FAILED_PRECONDITION, "checkpoint measured in term " + c.getProposerTerm() + ", applied in "
          + at.term());
    }
    for (Checkpoint cp : c.getCheckpointsList()) {
      LeaseRecord lease = txn.lease(cp.getLeaseId());
      if (lease != null && lease.getRenewedIndex() == cp.getRenewedIndex() && cp.getRemainingMs() > 0
          && cp.getRemainingMs() <= lease.getTtlMs()) {
        txn.putLease(lease.toBuilder().setCheckpointRemainingMs(cp.getRemainingMs()).build());
      }
    }
    return Result.newBuilder();
  }
}
