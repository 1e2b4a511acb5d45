package io.regent.server.lease;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.LongPredicate;

/**
 * When each long lease is next checkpointed (docs/architecture.md §3.8): one interval after it is first
 * tracked in an epoch, then one interval after each checkpoint, and {@link #due} hands out a bounded number
 * at a time, so the checkpoint rate stays bounded however many leases there are. A renewal postpones the
 * next checkpoint: a lease its client keeps renewing is not checkpointed again, so its keepalives need no
 * entry (a checkpointed lease's do). A lease that is no longer tracked is dropped when it surfaces. Not
 * thread-safe: {@link Lessor} locks.
 */
final class CheckpointSchedule {
  private record Due(long at, long id) {
  }

  private final long intervalNanos;
  private final PriorityQueue<Due> queue = new PriorityQueue<>(Comparator.comparingLong(Due::at));
  /** Lease id to when it is next due (ns); a heap entry with another time is stale. */
  private final Map<Long, Long> next = new HashMap<>();

  /** @param intervalNanos time between two checkpoints of one lease nobody renews, ns */
  CheckpointSchedule(long intervalNanos) {
    this.intervalNanos = intervalNanos;
  }

  void clear() {
    queue.clear();
    next.clear();
  }

  /** Schedules the first checkpoint of lease {@code id} one interval after {@code now} (ns). */
  void track(long id, long now) {
    at(id, now + intervalNanos);
  }

  /** Lease {@code id} was renewed: no checkpoint before {@code notBefore} (ns). */
  void postpone(long id, long notBefore) {
    Long at = next.get(id);
    if (at != null && notBefore - at > 0) {
      at(id, notBefore);
    }
  }

  private void at(long id, long at) {
    next.put(id, at);
    queue.add(new Due(at, id));
  }

  /**
   * At most {@code max} leases due at {@code now} for which {@code tracked} holds; each is scheduled again one
   * interval later; the others are forgotten.
   */
  List<Long> due(long now, int max, LongPredicate tracked) {
    List<Long> out = new ArrayList<>();
    while (out.size() < max && !queue.isEmpty() && now - queue.peek().at() >= 0) {
      Due top = queue.poll();
      Long at = next.get(top.id());
      if (at == null || at != top.at()) {
        continue; // postponed since this entry was pushed
      }
      if (tracked.test(top.id())) {
        out.add(top.id());
        at(top.id(), now + intervalNanos);
      } else {
        next.remove(top.id());
      }
    }
    return out;
  }
}
