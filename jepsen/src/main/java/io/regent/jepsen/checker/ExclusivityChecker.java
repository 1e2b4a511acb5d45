package io.regent.jepsen.checker;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The lease-exclusivity checker: each client records, on one monotonic clock shared by all clients
 * (the test machine's), the interval {@code [start, end]} in which it believed it held a name (from its
 * grant to its own step-down deadline). The property is mutual exclusion in real time: no two
 * intervals of different clients for the same name overlap. Intervals are closed, so touching
 * endpoints count as an overlap (the safe reading for a safety property). Intervals of one client may
 * overlap each other (renewals).
 *
 * <p>Algorithm: per name, a sweep over intervals sorted by start that keeps the interval reaching
 * furthest and the one reaching furthest among the other clients; the first interval (by start) that
 * begins before one of another client ends gives the first overlapping pair. O(n log n).
 */
public final class ExclusivityChecker {
  private ExclusivityChecker() {
  }

  /**
   * One believed-ownership interval.
   *
   * @param name the lease/election name
   * @param client who believed it held the name
   * @param start grant time, monotonic clock (ns)
   * @param end the client's step-down deadline on the same clock (ns), not before start
   */
  public record Interval(String name, String client, long start, long end) {
    /** Validates the interval. */
    public Interval {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(client, "client");
      if (end < start) {
        throw new IllegalArgumentException("interval ends before it starts: " + start + " > " + end);
      }
    }

    /** True if the closed intervals share at least one instant. */
    public boolean overlaps(Interval o) {
      return start <= o.end && o.start <= end;
    }
  }

  /**
   * The verdict.
   *
   * @param verdict VALID or INVALID
   * @param intervals number of intervals checked
   * @param first the first overlapping pair (earlier start first), or {@code null} if none
   * @param overlappingNames names with at least one overlap
   */
  public record Report(Verdict verdict, int intervals, Overlap first, List<String> overlappingNames) {
    /** Copies the name list. */
    public Report {
      overlappingNames = List.copyOf(overlappingNames);
    }

    /** A one-line explanation. */
    public String explanation() {
      if (first == null) {
        return "no two clients believed they held the same name at once (" + intervals
            + " intervals)";
      }
      return "clients " + first.a().client() + " and " + first.b().client() + " both believed they held "
          + first.a().name() + " for " + first.length() + " ns: " + first.a() + " overlaps "
          + first.b();
    }
  }

  /**
   * Two overlapping intervals of different clients.
   *
   * @param a the interval that started first
   * @param b the interval that started inside {@code a}
   */
  public record Overlap(Interval a, Interval b) {
    /** Length of the shared part, in clock units (0 when they only touch). */
    public long length() {
      return Math.min(a.end(), b.end()) - Math.max(a.start(), b.start());
    }
  }

  /** Checks the intervals. */
  public static Report check(List<Interval> intervals) {
    Map<String, List<Interval>> byName = new LinkedHashMap<>();
    for (Interval i : intervals) {
      byName.computeIfAbsent(i.name(), k -> new ArrayList<>()).add(i);
    }
    Overlap first = null;
    List<String> bad = new ArrayList<>();
    for (Map.Entry<String, List<Interval>> e : byName.entrySet()) {
      Overlap o = firstOverlap(e.getValue());
      if (o != null) {
        bad.add(e.getKey());
        if (first == null || o.b().start() < first.b().start()) {
          first = o;
        }
      }
    }
    return new Report(first == null ? Verdict.VALID : Verdict.INVALID, intervals.size(), first, bad);
  }

  /** The first overlap among intervals of one name, or null. */
  static Overlap firstOverlap(List<Interval> intervals) {
    List<Interval> sorted = new ArrayList<>(intervals);
    sorted.sort(Comparator.comparingLong(Interval::start).thenComparingLong(Interval::end));
    Interval best = null;    // reaches furthest
    Interval other = null;   // reaches furthest among clients other than best's
    for (Interval c : sorted) {
      Interval rival = best != null && !best.client().equals(c.client()) ? best : other;
      if (rival != null && rival.end() >= c.start()) {
        return new Overlap(rival, c);
      }
      if (best == null) {
        best = c;
      } else if (best.client().equals(c.client())) {
        if (c.end() > best.end()) {
          best = c;
        }
      } else if (c.end() > best.end()) {
        other = best;
        best = c;
      } else if (other == null || c.end() > other.end()) {
        other = c;
      }
    }
    return null;
  }
}
