package io.regent.client;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Estimates the rate of this client's monotonic clock against one node's, from the readings of the node's clock
 * that renewed keepalives carry ({@code LeaseKeepAliveResponse.node_clock_ms}; docs/architecture.md §3.6, "Clock
 * bounds"). A pure function of the samples it is given; not thread-safe (its {@link LeaseKeeper} locks). Public
 * only for its {@link Estimate}, which {@link LeaseKeeper#clockRate()} shows.
 *
 * <p>Error bars from the round trip: the node read its clock somewhere between the client's send and its receipt
 * of the answer, and a reading is truncated to the ms. So between two samples {@code a} and {@code b}, the node's
 * clock advanced by {@code D = b.node - a.node} (± 1 ms) while the client's advanced by at least
 * {@code b.sent - a.received} and at most {@code b.received - a.sent}: the client's rate lies in
 * {@code [(b.sent - a.received) / (D + 1), (b.received - a.sent) / (D - 1)]}. Only pairs at least
 * {@link #MIN_SPAN_MS} of the node's time apart count, so a round trip of a few ms on a LAN costs a fraction of a
 * per cent of precision, and one of 100 ms still less than 4 %.
 *
 * <p>Each pair's interval is a sound bound for the client's mean rate over that pair's span. The verdict is the
 * most telling one: the lowest upper bound when it lies below {@link #SLOW_BELOW} (the client's clock was slow
 * over that span, whatever happened elsewhere in the window), else the highest lower bound when it lies above
 * {@link #FAST_ABOVE}, else the narrowest interval. Samples older than {@link #MAX_SPAN_MS} of the node's time
 * are dropped, so a clock that becomes slow is seen within one window. Readings of different nodes, or of one
 * node's processes (a restart begins a new origin), are not comparable: a sample of another clock than the
 * window's restarts the window (a leader change switches nodes).
 */
public final class ClockRate {
  /**
   * A client clock whose rate against the node's is certainly below this is slow enough to step down for. The
   * 2/3-TTL rule tolerates a client at &ge; 2/3 of the leader's rate (docs/architecture.md §3.6); 0.9 detects
   * well before that, leaves room for an answering follower whose own clock the nodes hold within ±10 % of the
   * leader's (0.9 × 0.9 = 0.81 &gt; 2/3), and lies far outside what a healthy clock does (NTP slews by at most
   * 500 ppm), so only a grossly slow clock (libfaketime, a throttled VM) crosses it.
   */
  public static final double SLOW_BELOW = 0.9;
  /** A client clock certainly faster than this is reported (harmless for safety: its holder stops early). */
  public static final double FAST_ABOVE = 1.1;
  /** Shortest span of the node's time over which a rate is estimated, ms. */
  public static final long MIN_SPAN_MS = 5_000;
  /** Longest span of the node's time kept in the window, ms. */
  static final long MAX_SPAN_MS = 60_000;
  /**
   * Samples closer than this in the node's time share one slot (the one with the shorter round trip is kept),
   * ms: a window holds at most {@code MAX_SPAN_MS / MIN_GAP_MS + 1} samples however often the keeper renews.
   */
  static final long MIN_GAP_MS = 1_000;

  /**
   * One renewed keepalive: sent and answered at {@code sentNanos} and {@code receivedNanos} on the client's clock
   * (ns, as {@link System#nanoTime}); the node's clock read {@code nodeMs} in between.
   */
  record Sample(long sentNanos, long receivedNanos, long nodeMs) {
    long roundTripNanos() {
      return receivedNanos - sentNanos;
    }
  }

  /**
   * The client's clock rate against node {@code node}'s (1 = the same; 0.5 = the client's runs at half speed),
   * certainly within {@code [low, high]}, measured over {@code spanMs} of the node's time; {@code node} is the
   * node's member id (empty for a node without Raft).
   */
  public record Estimate(String node, double low, double high, long spanMs) {
    /** The middle of the interval. */
    public double rate() {
      return (low + high) / 2;
    }

    /** Whether the client's clock is certainly slower than {@link #SLOW_BELOW} of the node's. */
    public boolean slow() {
      return high < SLOW_BELOW;
    }

    /** Whether the client's clock is certainly faster than {@link #FAST_ABOVE} of the node's. */
    public boolean fast() {
      return low > FAST_ABOVE;
    }
  }

  private final Deque<Sample> window = new ArrayDeque<>(); // in the node's time order
  private String node;
  private long nodeStartedMs;

  /**
   * Adds a sample of the clock of node {@code node} (its member id) in the process started at
   * {@code nodeStartedMs} (an identity only) and returns the estimate over the window, or null while the window
   * spans less than {@link #MIN_SPAN_MS}. A sample answered before it was sent is ignored.
   */
  Estimate add(String node, long nodeStartedMs, Sample s) {
    if (s.receivedNanos() < s.sentNanos()) {
      return null;
    }
    if (!Objects.equals(node, this.node) || nodeStartedMs != this.nodeStartedMs
        || (!window.isEmpty() && s.nodeMs() < window.peekLast().nodeMs())) {
      window.clear(); // another clock: readings of the old one say nothing about this one
      this.node = node;
      this.nodeStartedMs = nodeStartedMs;
    }
    while (!window.isEmpty() && s.nodeMs() - window.peekFirst().nodeMs() > MAX_SPAN_MS) {
      window.pollFirst();
    }
    Estimate e = estimate(s);
    Sample last = window.peekLast();
    if (last == null || s.nodeMs() - last.nodeMs() >= MIN_GAP_MS) {
      window.addLast(s);
    } else if (s.roundTripNanos() < last.roundTripNanos()) {
      window.pollLast();
      window.addLast(s);
    }
    return e;
  }

  /** The most telling interval of {@code b} against the window's samples far enough before it, or null. */
  private Estimate estimate(Sample b) {
    Estimate slowest = null;
    Estimate fastest = null;
    Estimate narrowest = null;
    for (Sample a : window) {
      long spanMs = b.nodeMs() - a.nodeMs();
      if (spanMs < MIN_SPAN_MS) {
        break; // the window is in the node's time order: the rest are closer still
      }
      double least = Math.max(0, ms(b.sentNanos() - a.receivedNanos())) / (spanMs + 1);
      double most = ms(b.receivedNanos() - a.sentNanos()) / (spanMs - 1);
      Estimate e = new Estimate(node, least, most, spanMs);
      if (slowest == null || e.high() < slowest.high()) {
        slowest = e;
      }
      if (fastest == null || e.low() > fastest.low()) {
        fastest = e;
      }
      if (narrowest == null || e.high() - e.low() < narrowest.high() - narrowest.low()) {
        narrowest = e;
      }
    }
    if (slowest == null) {
      return null;
    }
    return slowest.slow() ? slowest : fastest.fast() ? fastest : narrowest;
  }

  private static double ms(long nanos) {
    return nanos / (double) TimeUnit.MILLISECONDS.toNanos(1);
  }
}
