package io.regent.server.lease;

import java.util.ArrayList;
import java.util.List;

/**
 * When each long lease is next checkpointed (docs/architecture.md §3.8): one interval after it is first
 * tracked in an epoch, then one interval after each checkpoint, and {@link #due} hands out a bounded number
 * at a time, so the checkpoint rate stays bounded however many leases there are. A renewal postpones the
 * next checkpoint: a lease its client keeps renewing is not checkpointed again, so its keepalives need no
 * entry (a checkpointed lease's do). Each lease has one entry in a heap keyed by its id ({@link DeadlineHeap}),
 * moved in place by a postponement and taken out when the lease ends. Not thread-safe: {@link Lessor} locks.
 */
final class CheckpointSchedule {
  private final long intervalNanos;
  /** Lease id to when it is next due, ns. */
  private final DeadlineHeap next = new DeadlineHeap();

  /** @param intervalNanos time between two checkpoints of one lease nobody renews, ns (positive) */
  CheckpointSchedule(long intervalNanos) {
    this.intervalNanos = intervalNanos;
  }

  void clear() {
    next.clear();
  }

  /** Schedules the first checkpoint of lease {@code id} one interval after {@code now} (ns). */
  void track(long id, long now) {
    next.put(id, now + intervalNanos);
  }

  /** Lease {@code id} was renewed: no checkpoint before {@code notBefore} (ns). */
  void postpone(long id, long notBefore) {
    if (next.contains(id) && notBefore - next.at(id) > 0) {
      next.put(id, notBefore);
    }
  }

  /** Lease {@code id} ended: it is not checkpointed again. */
  void remove(long id) {
    next.remove(id);
  }

  /** At most {@code max} leases due at {@code now} (ns); each is scheduled again one interval later. */
  List<Long> due(long now, int max) {
    List<Long> out = new ArrayList<>();
    while (out.size() < max && !next.isEmpty() && now - next.peekAt() >= 0) {
      long id = next.peekId();
      out.add(id);
      next.put(id, now + intervalNanos);
    }
    return out;
  }
}
