package io.regent.server.lease;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The ready leader's lease deadlines, ordered by time, and the expiries they lead to, paced.
 *
 * <p>Deadlines live in a heap keyed by lease id ({@link DeadlineHeap}), so finding the due leases costs
 * O(due · log n) rather than a scan of every lease (etcd's lessor keeps a heap for the same reason). A renewal
 * moves the lease's one heap entry in place and an ended lease leaves the heap at once; an expiring lease is
 * no longer in it.
 *
 * <p>A lease whose deadline passed is <i>expiring</i> at once (its keepalives are refused) and joins a FIFO
 * of expiries to propose; {@link #take} hands out a bounded number per call, so that expiries which pile up
 * (every lease re-armed at the same promotion, a client fleet gone at once) are spread over several ticks
 * rather than proposed all at once; an expiry whose Expire entry failed is proposed again after a pause,
 * not every tick. Not thread-safe: {@link Lessor} locks.
 */
final class LeaseExpiry {
  /**
   * A lease's TTL (ms) and deadline (ns, monotonic); {@code expiring} once the deadline has passed;
   * {@code renewedIndex} its {@code LeaseRecord.renewed_index} as last applied; {@code checkpointed} while the
   * replicated state may hold a checkpoint of it not yet cleared by a renewal.
   */
  record Deadline(long ttlMs, long deadline, boolean expiring, long renewedIndex, boolean checkpointed) {
    Deadline markedExpiring() {
      return new Deadline(ttlMs, deadline, true, renewedIndex, checkpointed);
    }

    Deadline withCheckpoint() {
      return new Deadline(ttlMs, deadline, expiring, renewedIndex, true);
    }
  }

  private record Retry(long at, List<Long> ids) {
  }

  private final Map<Long, Deadline> byId = new HashMap<>();
  /** The deadline of every tracked lease that is not expiring (the one in its {@link Deadline}). */
  private final DeadlineHeap deadlines = new DeadlineHeap();
  /** Expiring leases not yet in a proposed Expire entry, in the order their deadlines passed. */
  private final ArrayDeque<Long> unproposed = new ArrayDeque<>();
  /** Expiring leases whose Expire entry failed, with when to propose them again. */
  private final ArrayDeque<Retry> retries = new ArrayDeque<>();

  /** Forgets every lease. */
  void clear() {
    byId.clear();
    deadlines.clear();
    unproposed.clear();
    retries.clear();
  }

  /** Sets lease {@code id} live with {@code deadline} (ns, monotonic clock). */
  void live(long id, long ttlMs, long deadline, long renewedIndex, boolean checkpointed) {
    byId.put(id, new Deadline(ttlMs, deadline, false, renewedIndex, checkpointed));
    deadlines.put(id, deadline);
  }

  /**
   * Replaces the tracked state of lease {@code id}, which must be tracked, by {@code d} with the same deadline
   * and expiring flag (a new deadline goes through {@link #live}).
   */
  void update(long id, Deadline d) {
    byId.put(id, d);
  }

  /** The lease's deadline, or null when it is not tracked. */
  Deadline get(long id) {
    return byId.get(id);
  }

  /** Stops tracking lease {@code id} (an entry of it in the queue of expiries is dropped when it surfaces). */
  void remove(long id) {
    byId.remove(id);
    deadlines.remove(id);
  }

  /**
   * Marks every lease whose deadline passed by {@code now} as expiring, and returns at most {@code max}
   * expiring leases to propose now: those whose retry time has come first, then the others in deadline order.
   */
  List<Long> take(long now, int max) {
    while (!deadlines.isEmpty() && now - deadlines.peekAt() >= 0) {
      long id = deadlines.poll();
      byId.put(id, byId.get(id).markedExpiring());
      unproposed.addLast(id);
    }
    while (!retries.isEmpty() && now - retries.peekFirst().at() >= 0) {
      retries.pollFirst().ids().forEach(unproposed::addFirst);
    }
    List<Long> out = new ArrayList<>();
    while (out.size() < max && !unproposed.isEmpty()) {
      long id = unproposed.pollFirst();
      Deadline d = byId.get(id);
      if (d != null && d.expiring()) {
        out.add(id);
      }
    }
    return out;
  }

  /** The Expire entry of {@code ids} failed: those still expiring are proposed again from {@code retryAt} (ns). */
  void failed(List<Long> ids, long retryAt) {
    List<Long> still = ids.stream().filter(id -> byId.containsKey(id) && byId.get(id).expiring()).toList();
    if (!still.isEmpty()) {
      retries.addLast(new Retry(retryAt, still));
    }
  }
}
