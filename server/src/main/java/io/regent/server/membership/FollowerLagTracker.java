package io.regent.server.membership;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Remembers, on the Raft leader, when each follower's match index last moved, to turn the match indexes the leader
 * reports into {@link FollowerLag}s. It learns only from its samples: how long a follower has been stuck is known to
 * within the time between two samples, so the node samples it on a timer as well as on every read. Thread-safe.
 */
public final class FollowerLagTracker {
  private record Seen(long matchIndex, long sinceNanos) {
  }

  private final LongSupplier nanoClock;
  private final Map<String, Seen> seen = new HashMap<>();

  /** @param nanoClock a monotonic clock, ns ({@code System::nanoTime}; a fake one in tests) */
  public FollowerLagTracker(LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
  }

  /**
   * Records a sample and returns every follower's lag now, in the order of {@code matchIndexes}.
   *
   * @param matchIndexes each follower's match index, by id, as the leader reports it now
   * @param lastIndex the leader's last log index
   */
  public synchronized Map<String, FollowerLag> sample(Map<String, Long> matchIndexes, long lastIndex) {
    long now = nanoClock.getAsLong();
    seen.keySet().retainAll(matchIndexes.keySet()); // a removed member, or one this leader no longer sends to
    Map<String, FollowerLag> out = new LinkedHashMap<>();
    matchIndexes.forEach((id, match) -> {
      long behind = Math.max(0, lastIndex - match);
      Seen before = seen.get(id);
      Seen s = before == null || before.matchIndex != match || behind == 0 ? new Seen(match, now) : before;
      seen.put(id, s);
      double seconds = behind == 0 ? 0 : (now - s.sinceNanos) / (double) TimeUnit.SECONDS.toNanos(1);
      out.put(id, new FollowerLag(match, behind, seconds));
    });
    return out;
  }

  /** Forgets every follower: this node is not (or no longer) the leader, and a new term's indexes start afresh. */
  public synchronized void reset() {
    seen.clear();
  }
}
