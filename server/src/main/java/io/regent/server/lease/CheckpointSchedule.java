package io.regent.server.lease;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.LongPredicate;

/**
 * When each long lease is next checkpointed (docs/architecture.md, "Lease checkpoints"): every lease is due
 * one interval after it is first tracked in an epoch, then one interval after each checkpoint, and
 * {@link #due} hands out a bounded number at a time, so the checkpoint rate stays bounded however many
 * leases there are. A lease that is no longer tracked is dropped when it surfaces. Not thread-safe:
 * {@link Lessor} locks.
 */
final class CheckpointSchedule {
  private record Due(long at, long id) {
  }

  private final long intervalNanos;
  private final PriorityQueue<Due> queue = new PriorityQueue<>(Comparator.comparingLong(Due::at));

  /** @param intervalNanos time between two checkpoints of one lease, ns */
  CheckpointSchedule(long intervalNanos) {
    this.intervalNanos = intervalNanos;
  }

  void clear() {
    queue.clear();
  }

  /** Schedules the first checkpoint of lease {@code id} one interval after {@code now} (ns). */
  void track(long id, long now) {
    queue.add(new Due(now + intervalNanos, id));
  }

  /**
   * At most {@code max} leases due at {@code now} for which {@code tracked} holds; each is scheduled again one
   * interval later; the others are forgotten.
   */
  List<Long> due(long now, int max, LongPredicate tracked) {
    List<Long> out = new ArrayList<>();
    while (out.size() < max && !queue.isEmpty() && now - queue.peek().at() >= 0) {
      long id = queue.poll().id();
      if (tracked.test(id)) {
        out.add(id);
        queue.add(new Due(now + intervalNanos, id));
      }
    }
    return out;
  }
}
