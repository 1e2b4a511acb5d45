package io.regent.server.lease;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The ready leader's lease deadlines, ordered by time, so that finding the due leases costs O(due · log n)
 * rather than a scan of every lease (etcd's lessor keeps a heap for the same reason). A renewal pushes a new
 * heap entry and leaves the old one behind; a stale entry is recognised and dropped when it surfaces, so the
 * heap holds about one entry per lease per renewal within one TTL. Not thread-safe: {@link Lessor} locks.
 */
final class LeaseDeadlines {
  /** A lease's deadline, ns; {@code expiringSince} is 0 while live, else when its expiry was decided (ns). */
  record Deadline(long ttlMs, long deadline, long expiringSince) {
  }

  private record Due(long deadline, long id) {
  }

  private final Map<Long, Deadline> byId = new HashMap<>();
  private final PriorityQueue<Due> queue = new PriorityQueue<>(Comparator.comparingLong(Due::deadline));
  /** Leases whose expiry was decided but not yet applied: id to when it was (last) proposed, ns. */
  private final Map<Long, Long> expiring = new HashMap<>();

  /** Forgets every lease. */
  void clear() {
    byId.clear();
    queue.clear();
    expiring.clear();
  }

  /** Sets lease {@code id} live with {@code deadline} (ns, monotonic clock). */
  void live(long id, long ttlMs, long deadline) {
    byId.put(id, new Deadline(ttlMs, deadline, 0));
    expiring.remove(id);
    queue.add(new Due(deadline, id));
  }

  /** The lease's deadline, or null when it is not tracked. */
  Deadline get(long id) {
    return byId.get(id);
  }

  /** Stops tracking lease {@code id} (its heap entry is dropped when it surfaces). */
  void remove(long id) {
    byId.remove(id);
    expiring.remove(id);
  }

  /**
   * Leases to propose for expiry at {@code now}: those whose expiry was decided at least {@code retryNanos}
   * ago and is still not applied, then those whose deadline has passed, which become expiring from now.
   */
  List<Long> due(long now, long retryNanos) {
    List<Long> out = new ArrayList<>();
    long since = now == 0 ? 1 : now; // 0 means "live"
    for (Map.Entry<Long, Long> e : expiring.entrySet()) {
      if (now - e.getValue() >= retryNanos) {
        e.setValue(since);
        out.add(e.getKey());
      }
    }
    while (!queue.isEmpty() && now - queue.peek().deadline() >= 0) {
      Due top = queue.poll();
      Deadline d = byId.get(top.id());
      if (d == null || d.expiringSince() != 0 || d.deadline() != top.deadline()) {
        continue; // renewed, ended or already expiring since this entry was pushed
      }
      byId.put(top.id(), new Deadline(d.ttlMs(), d.deadline(), since));
      expiring.put(top.id(), since);
      out.add(top.id());
    }
    return out;
  }
}
