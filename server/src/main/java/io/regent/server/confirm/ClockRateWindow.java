package io.regent.server.confirm;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * One peer's clock rate relative to this node's, estimated from probe samples (docs/architecture.md §8.1, "clock
 * rates"). A pure function of the samples it was given: it reads no clock of its own, so tests drive it with
 * made-up times.
 *
 * <p>A sample is (local send time s, local receive time r, the peer's monotonic reading p), and the peer read its
 * clock somewhere in [s, r]. Between two samples i and j the peer's clock advanced p_j − p_i while this node's
 * advanced between s_j − r_i and r_j − s_i, so the rate lies in [(p_j − p_i)/(r_j − s_i), (p_j − p_i)/(s_j − r_i)]
 * for sure: the round-trip times are the error bars. The estimate pairs the newest sample with the newest older
 * one that is at least {@link ClockRateRule#minSpanNanos} before it and gives an interval no wider than
 * {@link ClockRateRule#maxError}: the shortest baseline that is precise enough, so that a change of rate shows
 * within about that span, and a long round trip (a far peer, a pause) only makes the baseline longer. When the
 * newest sample pairs with none (its own round trip was long), the newest one that does gives the estimate; the
 * rate is stale once that one is older than {@link ClockRateRule#staleNanos}.
 *
 * <p>Not thread-safe: its owner ({@link ClockRateCheck}) locks.
 */
public final class ClockRateWindow {
  /**
   * One probe: this node's monotonic time just before it sent the probe and just after the reply came, ns, and
   * the peer's monotonic reading in its reply, ns.
   */
  public record Sample(long sentNanos, long receivedNanos, long peerNanos) {
  }

  /** The rate lies in [{@code low}, {@code high}] (peer's elapsed time over this node's); 1.0 is equal rates. */
  public record Estimate(double low, double high) {
    /** The middle of the interval: the rate reported on the gauge. */
    public double mid() {
      return (low + high) / 2;
    }
  }

  /** What the window says of the peer's clock now. */
  public enum Verdict {
    /** Too few or too imprecise samples yet. */
    UNKNOWN,
    /** No sample for longer than {@link ClockRateRule#staleNanos}. */
    STALE,
    /** Some rate in the interval is off 1.0 by more than {@link ClockRateRule#bound}. */
    BEYOND,
    /** The whole interval lies within 1.0 ± {@link ClockRateRule#bound}. */
    WITHIN
  }

  private final ClockRateRule rule;
  private final ArrayDeque<Sample> samples = new ArrayDeque<>();
  private Estimate estimate;
  /** This node's receive time of the newest sample of {@link #estimate}, ns. */
  private long estimatedAt;

  /** @param rule the window's span, precision, bound and staleness */
  public ClockRateWindow(ClockRateRule rule) {
    this.rule = rule;
  }

  /**
   * Adds a sample (received after every earlier one) and drops those older than {@link ClockRateRule#windowNanos}.
   * A sample whose peer reading does not advance starts the window over: the peer's clock is not the one of the
   * earlier samples (a restart gives a new monotonic origin; its caller also calls {@link #clear}).
   */
  public void add(Sample s) {
    Sample last = samples.peekLast();
    if (last != null && (s.peerNanos() - last.peerNanos() <= 0 || s.sentNanos() - last.sentNanos() <= 0)) {
      samples.clear();
    }
    samples.addLast(s);
    while (s.receivedNanos() - samples.peekFirst().receivedNanos() > rule.windowNanos()) {
      samples.removeFirst();
    }
    estimateNow();
  }

  /** Forgets every sample: the peer restarted, its clock readings start from another origin. */
  public void clear() {
    samples.clear();
    estimate = null;
  }

  /** The current estimate, or {@code null} when none is precise enough. */
  public Estimate estimate() {
    return estimate;
  }

  /** The verdict at this node's monotonic time {@code nowNanos}. */
  public Verdict verdict(long nowNanos) {
    Sample last = samples.peekLast();
    if (last == null) {
      return Verdict.UNKNOWN;
    }
    if (estimate == null) {
      return nowNanos - last.receivedNanos() > rule.staleNanos() ? Verdict.STALE : Verdict.UNKNOWN;
    }
    if (nowNanos - estimatedAt > rule.staleNanos()) {
      return Verdict.STALE;
    }
    return estimate.low() >= 1 - rule.bound() && estimate.high() <= 1 + rule.bound()
        ? Verdict.WITHIN : Verdict.BEYOND;
  }

  /**
   * The estimate of the newest sample that pairs with an older one into a precise enough interval: a sample whose
   * own round trip was long (a pause on either side) then leaves the last estimate standing until it goes stale.
   */
  private void estimateNow() {
    estimate = null;
    for (Iterator<Sample> newer = samples.descendingIterator(); newer.hasNext(); ) {
      Sample j = newer.next();
      Estimate e = estimateWith(j);
      if (e != null) {
        estimate = e;
        estimatedAt = j.receivedNanos();
        return;
      }
    }
  }

  /** The shortest precise enough baseline ending at {@code j}, or {@code null}. */
  private Estimate estimateWith(Sample j) {
    for (Iterator<Sample> older = samples.descendingIterator(); older.hasNext(); ) {
      Sample i = older.next();
      long shortest = j.sentNanos() - i.receivedNanos();
      if (j.receivedNanos() - i.sentNanos() < rule.minSpanNanos() || shortest <= 0) {
        continue; // i is j itself, newer than j, or too close to it
      }
      double peer = j.peerNanos() - i.peerNanos();
      Estimate e = new Estimate(peer / (j.receivedNanos() - i.sentNanos()), peer / shortest);
      if ((e.high() - e.low()) / 2 <= rule.maxError() * e.mid()) {
        return e;
      }
    }
    return null;
  }
}
