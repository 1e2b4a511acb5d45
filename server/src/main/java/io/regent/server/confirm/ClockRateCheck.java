package io.regent.server.confirm;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leadership lease's clock-rate condition (docs/architecture.md §8.1, "clock rates"): a round gives this node no
 * lease, and a lease held ends, while the clock rate relative to its own of a voter that may have acknowledged that
 * round is unknown, stale or beyond the bound of its {@link ClockRateRule}. The rate is relative: which of two
 * clocks is wrong is not decided, any disagreement beyond the bound withholds the lease. Samples come from the prober ({@code ClockProber}); one {@link ClockRateWindow}
 * per peer.
 *
 * <p>Thread-safe.
 */
public final class ClockRateCheck implements LeadershipLease.ClockRates {
  private static final Logger LOG = LoggerFactory.getLogger(ClockRateCheck.class);

  private final String self;
  private final Supplier<Set<String>> voters;
  private final LongSupplier nanoClock;
  private final ClockRateRule rule;
  private final Map<String, Peer> peers = new HashMap<>();
  private Consumer<String> onNewPeer = p -> { };
  /** A node starts with no lease: the first line logged is when the rates allow it. */
  private boolean reportedWithheld = true;

  private static final class Peer {
    final ClockRateWindow window;
    long boot;
    ClockRateWindow.Verdict reported = ClockRateWindow.Verdict.UNKNOWN;

    Peer(ClockRateRule rule) {
      window = new ClockRateWindow(rule);
    }
  }

  /**
   * @param self this node's id
   * @param voters ids of the voters this node knows now, itself included
   * @param nanoClock this node's monotonic clock, ns: the one the lease is measured on
   * @param rule when a rate is known and within bounds
   */
  public ClockRateCheck(String self, Supplier<Set<String>> voters, LongSupplier nanoClock, ClockRateRule rule) {
    this.self = self;
    this.voters = voters;
    this.nanoClock = nanoClock;
    this.rule = rule;
  }

  /**
   * Has {@code listener} told of each peer the first time a sample of it arrives (and of those seen already): the
   * metrics register one gauge per peer.
   */
  public synchronized void onNewPeer(Consumer<String> listener) {
    this.onNewPeer = listener;
    peers.keySet().forEach(listener);
  }

  /**
   * One probe's sample of {@code peer}, whose process is {@code boot} (another value than before: it restarted, and
   * its readings start from another origin).
   */
  public void sample(String peer, long boot, ClockRateWindow.Sample sample) {
    boolean added;
    Consumer<String> listener;
    synchronized (this) {
      Peer p = peers.get(peer);
      added = p == null;
      if (added) {
        p = new Peer(rule);
        peers.put(peer, p);
      } else if (p.boot != boot) {
        p.window.clear();
      }
      p.boot = boot;
      p.window.add(sample);
      listener = onNewPeer;
    }
    if (added) {
      listener.accept(peer);
    }
  }

  /**
   * Whether the clock rate of each of {@code ids} other than this node is known, fresh and within the bound now (the
   * lease asks, for the voters that may have acknowledged its round).
   */
  @Override
  public boolean withinBound(Collection<String> ids) {
    long now = nanoClock.getAsLong();
    synchronized (this) {
      for (String id : ids) {
        if (!id.equals(self) && !within(id, now)) {
          return false;
        }
      }
    }
    return true;
  }

  @Override
  public Set<String> inDoubt() {
    long now = nanoClock.getAsLong();
    Set<String> doubt = new HashSet<>();
    Set<String> ids = voters.get();
    synchronized (this) {
      for (String id : ids) {
        if (!id.equals(self) && !within(id, now)) {
          doubt.add(id);
        }
      }
    }
    return doubt;
  }

  @Override
  public boolean anyBeyond() {
    long now = nanoClock.getAsLong();
    Set<String> ids = voters.get();
    synchronized (this) {
      for (String id : ids) {
        Peer p = peers.get(id);
        if (!id.equals(self) && p != null && p.window.verdict(now) == ClockRateWindow.Verdict.BEYOND) {
          return true;
        }
      }
    }
    return false;
  }

  /** Caller holds this object's lock. */
  private boolean within(String id, long now) {
    Peer p = peers.get(id);
    return p != null && p.window.verdict(now) == ClockRateWindow.Verdict.WITHIN;
  }

  /**
   * Whether every other voter's clock rate is known, fresh and within the bound now: when not, the lease is withheld
   * whenever a voter in doubt acknowledges its round (the gauge, and tests).
   */
  public boolean withinBound() {
    long now = nanoClock.getAsLong();
    Set<String> ids = voters.get();
    if (ids.isEmpty()) {
      return false;
    }
    synchronized (this) {
      for (String id : ids) {
        if (id.equals(self)) {
          continue;
        }
        if (!within(id, now)) {
          return false;
        }
      }
    }
    return true;
  }

  /** Whether this node would hold no lease now for its peers' clock rates (the gauge: 1 withheld, 0 not). */
  public boolean withheld() {
    return !withinBound();
  }

  /** The middle of {@code peer}'s rate estimate relative to this node's clock, or NaN when unknown or stale. */
  public synchronized double rate(String peer) {
    Peer p = peers.get(peer);
    if (p == null) {
      return Double.NaN;
    }
    ClockRateWindow.Verdict v = p.window.verdict(nanoClock.getAsLong());
    return v == ClockRateWindow.Verdict.WITHIN || v == ClockRateWindow.Verdict.BEYOND ? p.window.estimate().mid()
        : Double.NaN;
  }

  /**
   * Logs each change of a voter's verdict, and of whether the lease is withheld, once (the prober calls it after
   * each round of probes). A voter's rate being unknown at start is not logged; its first verdict is.
   */
  public void review() {
    long now = nanoClock.getAsLong();
    Set<String> ids = voters.get();
    boolean withheld = ids.isEmpty();
    synchronized (this) {
      for (String id : ids) {
        if (id.equals(self)) {
          continue;
        }
        Peer p = peers.get(id);
        ClockRateWindow.Verdict v = p == null ? ClockRateWindow.Verdict.UNKNOWN : p.window.verdict(now);
        withheld |= v != ClockRateWindow.Verdict.WITHIN;
        if (p != null && v != p.reported) {
          log(id, p, v);
          p.reported = v;
        }
      }
      if (withheld != reportedWithheld) {
        reportedWithheld = withheld;
        if (withheld) {
          LOG.warn("node {}: a voter's clock rate is unknown, stale or beyond ±{} %: no leadership lease from a round "
              + "it may have acknowledged (docs/operations.md, \"Clock rates\")", self, Math.round(rule.bound() * 100));
        } else {
          LOG.info("node {}: every voter's clock rate is within ±{} % of this node's: the leadership lease may "
              + "be held", self, Math.round(rule.bound() * 100));
        }
      }
    }
  }

  private void log(String id, Peer p, ClockRateWindow.Verdict v) {
    long bound = Math.round(rule.bound() * 100);
    ClockRateWindow.Estimate e = p.window.estimate();
    switch (v) {
      case BEYOND -> LOG.warn("clock rate of {} is {} of {}'s (between {} and {}), beyond ±{} %: no leadership "
          + "lease from a round it acknowledges until it is back", id, fmt(e.mid()), self, fmt(e.low()), fmt(e.high()), bound);
      case WITHIN -> LOG.info("clock rate of {} is {} of {}'s, within ±{} %", id, fmt(e.mid()), self, bound);
      case STALE -> LOG.warn("clock rate of {} unknown: no probe answer for over {} ms: no leadership lease from a "
          + "round it acknowledges until it answers", id, rule.staleNanos() / 1_000_000);
      case UNKNOWN -> LOG.info("clock rate of {} not measured precisely enough yet: no leadership lease from a round "
          + "it acknowledges until it is", id);
    }
  }

  private static String fmt(double rate) {
    return String.format(java.util.Locale.ROOT, "%.3f", rate);
  }
}
