package io.regent.statemachine.apply;

import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.ChangeEvent.Kind;
import io.regent.statemachine.proto.Candidate;
import io.regent.statemachine.proto.Holder;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.store.StateTxn;
import java.util.List;

/**
 * Who holds a name next: a free name passes to the first candidate in its line, with this entry's index as the
 * new holder's fencing token (docs/architecture.md §2.4); a lease that ends leaves every line it waits in and
 * frees every name it holds. Shared by the name rules and the lease rules.
 *
 * <p>Not thread-safe: one instance per rule applied, on the apply thread.
 */
final class Succession {
  private final ApplyContext at;
  private final StateTxn txn;

  Succession(ApplyContext at) {
    this.at = at;
    this.txn = at.txn();
  }

  /** Passes a free name to its first candidate; every candidate is live (ended leases are withdrawn). */
  NameRecord promote(NameRecord rec) {
    if (rec.hasHolder() || rec.getCandidatesCount() == 0 || rec.getLockDelayMs() > 0) {
      return rec;
    }
    Candidate next = rec.getCandidates(0);
    if (next.getAllNamesCount() > 0) {
      return new CampaignAllRule(at).promote(rec);
    }
    Holder h = Holder.newBuilder().setLeaseId(next.getLeaseId()).setValue(next.getValue())
        .setToken(at.index()).setSinceIndex(at.index()).setLockDelayMs(next.getLockDelayMs())
        .setAttempt(next.getAttempt()).build();
    at.effects().event(new ChangeEvent(Kind.ELECTED, rec.getName(), h, at.index(), next.getLeaseId()));
    return rec.toBuilder().setHolder(h).removeCandidates(0).build();
  }

  /**
   * The first phase of ending {@code leases} ({@link LeaseRules#end}): withdraws each one's candidacies, then
   * passes on every free name of theirs, so that none of these leases is promoted by the entry that ends it.
   */
  void withdrawCandidacies(List<LeaseRecord> leases) {
    for (LeaseRecord lease : leases) {
      for (String name : lease.getNamesList()) {
        NameRecord rec = txn.name(name);
        if (rec != null && !isHolder(rec, lease.getId())) {
          store(withoutCandidate(rec, lease.getId()));
        }
      }
    }
    for (LeaseRecord lease : leases) {
      for (String name : lease.getNamesList()) {
        NameRecord rec = txn.name(name);
        if (rec != null && !rec.hasHolder()) {
          store(promote(rec)); // a CampaignAll candidate that reserved it may have left the head of the line
        }
      }
    }
  }

  /**
   * The second phase, for one ending lease: frees each name it holds and passes it on, unless the lease
   * expired and the holder asked for a lock-delay, which then starts at this entry.
   */
  void freeHeldBy(LeaseRecord lease, Kind kind) {
    for (String name : lease.getNamesList()) {
      NameRecord rec = txn.name(name);
      if (rec != null && isHolder(rec, lease.getId())) {
        long delay = kind == Kind.EXPIRED ? rec.getHolder().getLockDelayMs() : 0;
        NameRecord freed = rec.toBuilder().clearHolder().setLockDelayMs(delay)
            .setLockDelayStartIndex(delay > 0 ? at.index() : 0).build();
        at.effects().event(new ChangeEvent(kind, name, null, at.index(), lease.getId()));
        if (delay > 0) {
          // Chubby's lock-delay: an expired holder may still be acting, so nobody takes the name yet.
          at.effects().lockDelayStarted(freed);
          txn.putName(freed);
        } else {
          store(promote(freed));
        }
      }
    }
  }

  /** Stores {@code rec}, or deletes it when it has no holder, no candidate and no lock-delay left. */
  void store(NameRecord rec) {
    if (!rec.hasHolder() && rec.getCandidatesCount() == 0 && rec.getLockDelayMs() == 0) {
      txn.deleteName(rec.getName());
    } else {
      txn.putName(rec);
    }
  }

  /** Whether the lease {@code leaseId} holds {@code rec}'s name. */
  static boolean isHolder(NameRecord rec, long leaseId) {
    return rec.hasHolder() && rec.getHolder().getLeaseId() == leaseId;
  }

  /** {@code rec} with the candidacy of lease {@code leaseId} taken out of its line. */
  static NameRecord withoutCandidate(NameRecord rec, long leaseId) {
    NameRecord.Builder b = rec.toBuilder().clearCandidates();
    rec.getCandidatesList().stream().filter(c -> c.getLeaseId() != leaseId).forEach(b::addCandidates);
    return b.build();
  }
}
