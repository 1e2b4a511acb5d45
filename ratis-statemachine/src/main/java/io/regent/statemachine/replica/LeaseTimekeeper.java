package io.regent.statemachine.replica;

import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.NameRecord;
import java.util.List;

/**
 * Leader-side lease time, injected by the server (which owns every clock). The state machine calls it on
 * Ratis's apply thread, in log order, so its view of which leases exist follows the applied state.
 *
 * <p>Only a ready leader measures time (docs/architecture.md §3.1): deadlines are leader-local memory, never replicated.
 */
public interface LeaseTimekeeper {
  /**
   * This node became the ready leader of {@code term}, the term of its own startup entry: every entry of
   * earlier terms is applied. Every lease gets a fresh deadline of now + ttl (etcd's Promote), and every
   * lock-delay in force a full delay again. Ignored when this node has already left {@code term}
   * ({@link #onNotLeader} with that term or a later one) or is ready in a later term: Ratis reports
   * readiness and step-downs on different threads (docs/architecture.md §3.4).
   */
  void onLeaderReady(long term, List<LeaseRecord> leases, List<NameRecord> lockDelayed);

  /**
   * This node is no longer leader: forget every deadline and stop proposing expiries.
   *
   * @param term this node's current term when it learnt it (at least the term it led); a readiness of this
   *     term or an older one is ignored from now on
   */
  void onNotLeader(long term);

  /** A lease was granted by an applied entry. */
  void onGranted(LeaseRecord lease);

  /** Leases ended by an applied entry. */
  void onEnded(List<Long> leaseIds);

  /** An applied Expire started the lock-delay of {@code name} ({@link NameRecord#getLockDelayMs}). */
  void onLockDelay(NameRecord name);

  /**
   * A Confirm entry of {@code term} was applied: its commit proves a majority followed that term after the
   * entry was proposed.
   *
   * @param renew leases to renew (deadline = now + ttl) unless already marked expiring
   * @param query leases whose remaining time is asked, without renewal
   * @return one verdict per lease, in the order renew then query
   */
  List<LeaseVerdict> confirm(long term, List<LeaseRecord> renew, List<LeaseRecord> query);

  /**
   * Whether the replicated state may hold a checkpoint of lease {@code leaseId} that no renewal cleared (or one
   * is on its way): its renewal must then be a committed Confirm entry, never an answer without an entry
   * (docs/architecture.md §3.8). Unknown leases answer true.
   */
  default boolean checkpointed(long leaseId) {
    return true;
  }

  /** A timekeeper for replicas that never lead (tests, tools): measures nothing. */
  LeaseTimekeeper NONE = new LeaseTimekeeper() {
    @Override
    public void onLeaderReady(long term, List<LeaseRecord> leases, List<NameRecord> lockDelayed) {
    }

    @Override
    public void onLockDelay(NameRecord name) {
    }

    @Override
    public void onNotLeader(long term) {
    }

    @Override
    public void onGranted(LeaseRecord lease) {
    }

    @Override
    public void onEnded(List<Long> leaseIds) {
    }

    @Override
    public List<LeaseVerdict> confirm(long term, List<LeaseRecord> renew, List<LeaseRecord> query) {
      return java.util.Collections.nCopies(renew.size() + query.size(), LeaseVerdict.UNVOUCHED);
    }
  };
}
