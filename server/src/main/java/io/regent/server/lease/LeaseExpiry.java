package io.regent.server.lease;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The ready leader's lease deadlines, ordered by time, and the expiries they lead to, paced.
 *
 * <p>Deadlines live in a heap, so finding the due leases costs O(due · log n) rather than a scan of every
 * lease (etcd's lessor keeps a heap for the same reason). A renewal pushes a new heap entry and leaves the
 * old one behind; a stale entry is recognised and dropped when it surfaces.
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

  private record Due(long deadline, long id) {
  }

  private record Retry(long at, List<Long> ids) {
  }

  private final Map<Long, Deadline> byId = new HashMap<>();
  private final PriorityQueue<Due> queue = new PriorityQueue<>(Comparator.comparingLong(Due::deadline));
  /** Expiring leases not yet in a proposed Expire entry, in the order their deadlines passed. */
  private final ArrayDeque<Long> unproposed = new ArrayDeque<>();
  /** Expiring leases whose Expire entry failed, with when to propose them again. */
  private final ArrayDeque<Retry> retries = new ArrayDeque<>();

  /** Forgets every lease. */
  void clear() {
    byId.clear();
    queue.clear();
    unproposed.clear();
    retries.clear();
  }

  /** Sets lease {@code id} live with {@code deadline} (ns, monotonic clock). */
  void live(long id, long ttlMs, long deadline, long renewedIndex, boolean checkpointed) {
    byId.put(id, new Deadline(ttlMs, deadline, false, renewedIndex, checkpointed));
    queue.add(new Due(deadline, id));
  }

  /** Replaces the tracked state of lease {@code id}, which must be tracked, keeping its heap position. */
  void update(long id, Deadline d) {
    byId.put(id, d);
  }

  /** The lease's deadline, or null when it is not tracked. */
  Deadline get(long id) {
    return byId.get(id);
  }

  /** Stops tracking lease {@code id} (its heap and queue entries are dropped when they surface). */
  void remove(long id) {
    byId.remove(id);
  }

  /**
   * Marks every lease whose deadline passed by {@code now} as expiring, and returns at most {@code max}
   * expiring leases to propose now: those whose retry time has come first, then the others in deadline order.
   */
  List<Long> take(long now, int max) {
    while (!queue.isEmpty() && now - queue.peek().deadline() >= 0) {
      Due top = queue.poll();
      Deadline d = byId.get(top.id());
      if (d == null || d.expiring() || d.deadline() != top.deadline()) {
        continue; // renewed, ended or already expiring since this entry was pushed
      }
      byId.put(top.id(), d.markedExpiring());
      unproposed.addLast(top.id());
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
