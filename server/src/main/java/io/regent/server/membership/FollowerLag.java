package io.regent.server.membership;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How far one follower trails the Raft leader, as the leader sees it (docs/operations.md, "Follower lag").
 *
 * @param matchIndex the highest log index the leader knows the follower holds
 * @param lagEntries the leader's last log index minus {@code matchIndex}, at least 0
 * @param lagSeconds while {@code lagEntries > 0}, seconds since {@code matchIndex} last moved or the follower was
 *     last caught up; 0 when caught up
 */
public record FollowerLag(long matchIndex, long lagEntries, double lagSeconds) {
  /**
   * A follower behind by any entry whose match index has not moved for this long, seconds, lags: a healthy
   * follower acknowledges within one append round (milliseconds), and 10 s is longer than any election timeout
   * Regent accepts and than the GC pauses seen in the stress runs, yet short against the minutes a wedged
   * follower stayed behind (issue 40).
   */
  public static final double STALLED_SECONDS = 10;

  /**
   * A follower this many entries or more behind lags even while its match index moves: it is catching up from
   * far (a restart, a snapshot install), and until it has, one more fault can stop the cluster.
   */
  public static final long FAR_BEHIND_ENTRIES = 10_000;

  /** Whether this follower lags by the rule of {@link #STALLED_SECONDS} and {@link #FAR_BEHIND_ENTRIES}. */
  public boolean lagging() {
    return lagEntries >= FAR_BEHIND_ENTRIES || (lagEntries > 0 && lagSeconds >= STALLED_SECONDS);
  }

  /**
   * What {@code regent status} says of {@code followers} (by id, in the map's order): empty when none lags, else
   * {@code degraded: n3 behind 5000 entries for 60 s}, one clause per lagging follower, separated by ", ".
   */
  public static String degraded(Map<String, FollowerLag> followers) {
    List<String> clauses = new ArrayList<>();
    followers.forEach((id, lag) -> {
      if (lag.lagging()) {
        clauses.add(id + " behind " + lag.lagEntries() + " entries for " + (long) lag.lagSeconds() + " s");
      }
    });
    return clauses.isEmpty() ? "" : "degraded: " + String.join(", ", clauses);
  }
}
