package io.regent.jepsen.checker;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * The restart run's verdict (issue #40): every node killed and restarted must reach, within {@code boundMs} of
 * answering again, the commit index its peers had when it came back (its own commit index: it holds those entries
 * and knows them committed); and no acknowledged write may be lost.
 * Valid when there was at least one restart and both hold; invalid when a restart caught up late or never, or a
 * write was lost; unknown when no restart happened (nothing was tested).
 */
public final class CatchUpChecker {
  private CatchUpChecker() {
  }

  /**
   * One kill and restart.
   *
   * @param node the node id
   * @param afterSnapshot whether it was killed 0–500 ms after one of its snapshots (else at a random moment)
   * @param target the highest commit index of the other nodes when it answered again
   * @param answeredMs ms from the restart to its first answer; empty if it never answered
   * @param caughtUpMs ms from its first answer until its commit index reached {@code target}; empty if never
   */
  public record Restart(String node, boolean afterSnapshot, long target, OptionalLong answeredMs,
      OptionalLong caughtUpMs) {
    /** Whether it caught up within {@code boundMs} of answering. */
    public boolean inTime(long boundMs) {
      return answeredMs.isPresent() && caughtUpMs.isPresent() && caughtUpMs.getAsLong() <= boundMs;
    }
  }

  /** The verdict and why. */
  public record Outcome(Verdict verdict, String explanation, int late, long slowestMs) {
  }

  /**
   * Judges a run.
   *
   * @param restarts every restart, in order
   * @param boundMs how long a restarted node may take to catch up once it answers, ms
   * @param lost acknowledged writes missing at a check (descriptions), or writes acknowledged undone
   */
  public static Outcome judge(List<Restart> restarts, long boundMs, List<String> lost) {
    long slowest = restarts.stream().mapToLong(r -> r.caughtUpMs().orElse(Long.MAX_VALUE)).max().orElse(0);
    List<String> late = new ArrayList<>();
    for (int i = 0; i < restarts.size(); i++) {
      Restart r = restarts.get(i);
      if (!r.inTime(boundMs)) {
        late.add("restart " + (i + 1) + " of " + r.node() + (r.answeredMs().isEmpty() ? " never answered"
            : r.caughtUpMs().isEmpty() ? " never reached commit index " + r.target()
            : " took " + r.caughtUpMs().getAsLong() + " ms to reach commit index " + r.target()));
      }
    }
    if (!late.isEmpty() || !lost.isEmpty()) {
      List<String> why = new ArrayList<>(late);
      if (!lost.isEmpty()) {
        why.add(lost.size() + " acknowledged writes lost, e.g. " + lost.subList(0, Math.min(3, lost.size())));
      }
      return new Outcome(Verdict.INVALID, String.join("; ", why), late.size(), slowest);
    }
    if (restarts.isEmpty()) {
      return new Outcome(Verdict.UNKNOWN, "no node was restarted", 0, 0);
    }
    return new Outcome(Verdict.VALID, restarts.size() + " restarts, each caught up within " + boundMs
        + " ms (slowest " + slowest + " ms); no acknowledged write lost", 0, slowest);
  }
}
