package io.regent.server.lease;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The ready leader's lock-delays in force (Chubby's lock-delay), each identified by the index of the Expire
 * entry that started it and ordered by when it is due. The EndLockDelay the leader proposes names that
 * index, and a reply forgets only the delay it was aimed at, so neither a late copy at apply nor a late
 * reply here can end a newer delay of the same name (docs/architecture.md §3.4).
 * Not thread-safe: {@link Lessor} locks.
 */
final class LockDelays {
  /** A delay of {@code name} started by the entry at {@code startIndex}, due at {@code due} (ns). */
  record Delay(String name, long startIndex, long due) {
  }

  private final Map<String, Delay> byName = new HashMap<>();
  private final PriorityQueue<Delay> byDue = new PriorityQueue<>(Comparator.comparingLong(Delay::due));

  /** Forgets every delay. */
  void clear() {
    byName.clear();
    byDue.clear();
  }

  /** Times the delay of {@code name} started at {@code startIndex}, due at {@code due} ns; replaces an older one. */
  void start(String name, long startIndex, long due) {
    Delay d = new Delay(name, startIndex, due);
    byName.put(name, d);
    byDue.add(d);
  }

  /**
   * The delays due at {@code now}; each is due again {@code retryNanos} later, until {@link #ended} forgets it
   * (a proposed EndLockDelay may be lost).
   */
  List<Delay> due(long now, long retryNanos) {
    List<Delay> out = new ArrayList<>();
    while (!byDue.isEmpty() && now - byDue.peek().due() >= 0) {
      Delay top = byDue.poll();
      if (byName.get(top.name()) != top) {
        continue; // ended, or replaced by a newer delay, since this heap entry was pushed
      }
      out.add(top);
      Delay again = new Delay(top.name(), top.startIndex(), now + retryNanos);
      byName.put(top.name(), again);
      byDue.add(again);
    }
    return out;
  }

  /** An EndLockDelay aimed at the delay started at {@code startIndex} was applied: forgets that delay only. */
  void ended(String name, long startIndex) {
    Delay d = byName.get(name);
    if (d != null && d.startIndex() == startIndex) {
      byName.remove(name);
    }
  }
}
