package io.regent.jepsen.runner;

import java.util.ArrayList;
import java.util.List;

/**
 * Judges {@link FrozenLeaderRun}'s rounds against issue #40 item 6's targets (docs/ratis.md §10): with the Raft
 * leader frozen, a write sent through a follower once a new leader is ready is acknowledged within
 * {@link #LATE_GRANT_MS} ms, however many earlier writes are stuck on the frozen leader; and writes through the
 * live nodes are acknowledged within {@link #FIRST_REVOKE_MS} ms of the freeze. A write refused or hanging fails
 * its round. The second bound includes the election (one or two election timeouts of 0.6-0.9 s, then the votes): on a
 * machine too busy to hold an election on time, {@link #judge(List, boolean)} can bound instead what follows it,
 * {@link #AFTER_LEADER_MS} ms from the election of the leader that acknowledged the first revoke (its node log,
 * {@link ElectionLog}) to that acknowledgement. Such a machine can also depose the first new leader (its one live
 * follower's answers arrived 1.4 s apart beside the compare smoke run), and the election after that is Raft's,
 * not a write held behind the frozen leader's.
 */
final class FrozenLeaderVerdict {
  /** The late grant's bound, ms from its send (the new leader is ready by then). */
  static final long LATE_GRANT_MS = 1_000;
  /** The first acknowledged revoke's bound, ms from the freeze. */
  static final long FIRST_REVOKE_MS = 2_000;
  /**
   * The first acknowledged revoke's bound, ms from the election of the leader that acknowledged it, for a machine
   * too busy to hold the election on time: under verify's load (two Jepsen runs at once, load average ~30) Regent's share after the
   * election reached 1 429 ms (a clean-clone run; 33-216 ms on a quiet machine), and before the fix it was 2.8-8.8 s.
   */
  static final long AFTER_LEADER_MS = 2_000;

  /**
   * One freeze: the late grant's latency, and the first acknowledged revoke and the election of the leader that
   * acknowledged it, in ms after the freeze; -1 for none.
   */
  record Round(String frozen, long lateGrantMs, long firstRevokeMs, long electedMs) {
  }

  /** The verdict and, when invalid, each round that missed and by what. */
  record Outcome(boolean valid, String explanation) {
  }

  private FrozenLeaderVerdict() {
  }

  /** Judges {@code rounds} by the bounds, the election included; no rounds is invalid (nothing was shown). */
  static Outcome judge(List<Round> rounds) {
    return judge(rounds, true);
  }

  /**
   * Judges {@code rounds}; the first revoke is bounded from the freeze when {@code electionIncluded}, else from
   * the election of the leader that acknowledged it (a round in which none was seen fails).
   */
  static Outcome judge(List<Round> rounds, boolean electionIncluded) {
    if (rounds.isEmpty()) {
      return new Outcome(false, "no round ran");
    }
    List<String> missed = new ArrayList<>();
    long worstLate = 0;
    long worstRevoke = 0;
    for (int i = 0; i < rounds.size(); i++) {
      Round r = rounds.get(i);
      String at = "round " + (i + 1) + " (" + r.frozen() + " frozen): ";
      if (r.lateGrantMs() < 0) {
        missed.add(at + "the late grant was refused or hung");
      } else if (r.lateGrantMs() > LATE_GRANT_MS) {
        missed.add(at + "the late grant took " + r.lateGrantMs() + " ms (bound " + LATE_GRANT_MS + ")");
      }
      if (r.firstRevokeMs() < 0) {
        missed.add(at + "no revoke through a live node was acknowledged");
      } else if (electionIncluded && r.firstRevokeMs() > FIRST_REVOKE_MS) {
        missed.add(at + "the first revoke was acknowledged " + r.firstRevokeMs() + " ms after the freeze (bound "
            + FIRST_REVOKE_MS + ")");
      } else if (!electionIncluded && r.electedMs() < 0) {
        missed.add(at + "no election was seen after the freeze");
      } else if (!electionIncluded && r.firstRevokeMs() - r.electedMs() > AFTER_LEADER_MS) {
        missed.add(at + "the first revoke was acknowledged " + (r.firstRevokeMs() - r.electedMs())
            + " ms after the new leader's election (bound " + AFTER_LEADER_MS + ")");
      }
      worstLate = Math.max(worstLate, r.lateGrantMs());
      worstRevoke = Math.max(worstRevoke, r.firstRevokeMs());
    }
    if (!missed.isEmpty()) {
      return new Outcome(false, String.join("; ", missed));
    }
    return new Outcome(true, rounds.size() + " rounds: the late grant within " + worstLate
        + " ms, the first revoke within " + worstRevoke + " ms of the freeze");
  }
}
