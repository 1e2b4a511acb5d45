package io.regent.server.confirm;

import java.util.Collection;
import java.util.Collections;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The leader's leadership lease (docs/architecture.md §8.1; Raft thesis §6.4): while it
 * holds, no other leader can have committed anything, so a keepalive or a linearizable read that reaches this
 * node is confirmed at once, without a log entry.
 *
 * <p>The rule: let p be this node's monotonic time just before it proposes a Confirm entry while it is the
 * ready leader of term T. When that entry commits in term T, a majority received an AppendEntries sent after
 * p, and each of those followers refuses to vote for another candidate for one minimum election timeout after
 * it heard from this leader (Ratis 3.3.0 {@code VoteContext} in the pre-vote phase). So this node holds the lease
 * until p + {@code factor} × the smallest minimum election timeout among the voters ({@link VoterTiming}), for as
 * long as it is still the ready leader of T. The factor is below 1 by a margin for clock-rate drift between
 * nodes ({@link #SAFE_FACTOR}), and the lease is withheld while the clock rate of a voter that may have
 * acknowledged the round ({@link Acknowledgers}) is not known to be within a bound well inside that margin
 * ({@link ClockRates}), and while any voter's rate is measured beyond it. A voter that answered nothing sent after
 * p (down, paused, cut off) is in no majority the round counted, so its unknown or stale rate does not matter to
 * that lease; one whose rate is known to be beyond the bound has a broken clock, and which voters acknowledged is
 * read from Ratis's record of answers, not proven, so the lease waits until that clock is back.
 *
 * <p>Thread-safe.
 */
public final class LeadershipLease {
  /**
   * Share of the minimum election timeout the lease lasts: 0.8 leaves a 20 % margin, so clocks whose rates
   * differ by up to 25 % (far beyond any quartz or NTP-slewed clock; Spanner assumes 200 ppm) keep it safe.
   */
  public static final double SAFE_FACTOR = 0.8;

  /** The local Raft server's term and role. */
  public interface Leadership {
    /** The current term when this node is the ready leader of it, else -1. */
    long readyTerm();

    /** The current term, whatever this node's role. */
    long currentTerm();
  }

  /**
   * The voters' timing as this node knows it (docs/architecture.md §8.1: timing is one fact of the cluster):
   * the followers' clocks are what refuse votes, so the lease is bounded by the smallest of their timeouts.
   */
  @FunctionalInterface
  public interface VoterTiming {
    /**
     * The smallest effective minimum election timeout among the current voters (this node included), ms; -1
     * when some voter's timing is unknown, or a voter runs without the pre-vote: then no round gives a lease.
     */
    long minElectionTimeoutMs();

    /** Timing that never changes: a cluster whose every voter uses {@code ms}. */
    static VoterTiming fixed(long ms) {
      return () -> ms;
    }
  }

  /**
   * Whether the voters' clock rates are known to agree with this node's (docs/architecture.md §8.1, "clock rates";
   * {@link ClockRateCheck}): the lease counts on the followers' clocks running at about the leader's rate.
   */
  public interface ClockRates {
    /** Rates that are not checked: for tests of the lease's other rules. */
    ClockRates UNCHECKED = new ClockRates() {
      @Override
      public boolean withinBound(Collection<String> peers) {
        return true;
      }

      @Override
      public Set<String> inDoubt() {
        return Set.of();
      }

      @Override
      public boolean anyBeyond() {
        return false;
      }
    };

    /**
     * Whether the clock rate of every one of {@code peers} (this node's id is ignored) is known, fresh and within
     * the bound now; cheap, called per read.
     */
    boolean withinBound(Collection<String> peers);

    /** The voters other than this node whose clock rate is unknown, stale or beyond the bound now. */
    Set<String> inDoubt();

    /**
     * Whether some voter other than this node has a clock rate known now to be beyond the bound, whether or not it
     * acknowledged anything (an unknown or stale rate, a paused or cut-off voter's, is not beyond); cheap, called
     * per read.
     */
    boolean anyBeyond();
  }

  /**
   * Which voters may have acknowledged a round (docs/architecture.md §8.1, "clock rates"): read from the leader's
   * record of its followers' last answers (Ratis 3.3.0 {@code FollowerInfo.getLastRpcResponseTime}, updated before
   * an answer's match index can advance the commit index).
   */
  @FunctionalInterface
  public interface Acknowledgers {
    /** For a lease whose clock rates are not checked ({@link ClockRates#UNCHECKED}): names no voter. */
    Acknowledgers NOT_NEEDED = nanos -> Set.of();

    /**
     * The voters other than this node that may have answered an AppendEntries this node sent at or after
     * {@code nanos} (ns on the lease's monotonic clock): every voter that did is in it, and so is every voter not known to
     * have been silent since; {@code null} when this node is not the leader now (no lease).
     */
    Set<String> since(long nanos);
  }

  /**
   * What {@link #begin} saw: the time a round was proposed, the term this node was the ready leader of
   * then (-1: none, the round cannot give a lease), the length of lease it may give, ns (-1: none), the voters
   * whose clock rate was in doubt then (if one of them acknowledges the round, it gives no lease), and whether some
   * voter's rate was beyond the bound then (the round gives no lease).
   */
  public record Start(long nanos, long term, long lengthNanos, Set<String> inDoubt, boolean anyBeyond) {
  }

  private final LongSupplier nanoClock;
  private final Leadership leadership;
  private final VoterTiming timing;
  private final ClockRates rates;
  private final Acknowledgers acks;
  private final double factor;
  private long term = -1;
  private long until;
  private long lengthNanos;
  /** The voters that may have acknowledged the round that gave the lease: their rates must stay within bound. */
  private Set<String> ackers = Set.of();
  private int suspended;
  /** Terms up to this one never give a lease again: a leadership transfer ran in one of them. */
  private long yieldedTerm = -1;

  /**
   * @param nanoClock monotonic clock, ns ({@code System::nanoTime})
   * @param leadership the local Raft server's role
   * @param timing the voters' minimum election timeouts
   * @param rates whether the voters' clock rates agree with this node's: no lease while one that may have
   *     acknowledged the round does not
   * @param acks which voters may have acknowledged a round, on {@code nanoClock}
   * @param factor length of the lease as a share of the smallest minimum election timeout; at most
   *     {@link #SAFE_FACTOR} unless the node runs the unsafe negative control
   * @throws IllegalArgumentException when {@code factor} is not above 0
   */
  public LeadershipLease(LongSupplier nanoClock, Leadership leadership, VoterTiming timing, ClockRates rates,
                         Acknowledgers acks, double factor) {
    if (!(factor > 0)) {
      throw new IllegalArgumentException("leadership lease factor " + factor + " must be above 0");
    }
    this.nanoClock = nanoClock;
    this.leadership = leadership;
    this.timing = timing;
    this.rates = rates;
    this.acks = acks;
    this.factor = factor;
  }

  /**
   * {@link #LeadershipLease(LongSupplier, Leadership, VoterTiming, ClockRates, Acknowledgers, double)} with rates not
   * checked.
   */
  public LeadershipLease(LongSupplier nanoClock, Leadership leadership, VoterTiming timing, double factor) {
    this(nanoClock, leadership, timing, ClockRates.UNCHECKED, Acknowledgers.NOT_NEEDED, factor);
  }

  /**
   * {@link #LeadershipLease(LongSupplier, Leadership, VoterTiming, double)} for voters that all use {@code ms}, rates
   * not checked.
   */
  public LeadershipLease(LongSupplier nanoClock, Leadership leadership, long minElectionTimeoutMs, double factor) {
    this(nanoClock, leadership, VoterTiming.fixed(minElectionTimeoutMs), factor);
  }

  /**
   * Call just before proposing a Confirm entry; hand the result to {@link #committed}. The voters' timing and
   * clock rates are read after the clock: a timing learnt later cannot lengthen a lease counted from an earlier
   * time, and a round begun while an acknowledging voter's rate was in doubt gives no lease even if the doubt
   * clears before it commits.
   */
  public Start begin() {
    long now = nanoClock.getAsLong();
    long term = leadership.readyTerm();
    long minMs = timing.minElectionTimeoutMs();
    return new Start(now, term, minMs <= 0 ? -1 : (long) (TimeUnit.MILLISECONDS.toNanos(minMs) * factor),
        rates.inDoubt(), rates.anyBeyond());
  }

  /**
   * The entry proposed after {@code start} committed in {@code entryTerm}. It extends the lease only when it is
   * an entry of the term this node was the ready leader of at {@code start} (then this node appended it, after
   * {@code start}), when every voter that may have acknowledged it had and has a clock rate within the bound (the
   * followers that refuse votes for the lease are among those), and when no voter's rate was or is beyond it.
   */
  public void committed(Start start, long entryTerm) {
    if (start.term() < 0 || entryTerm != start.term() || start.lengthNanos() <= 0 || start.anyBeyond()
        || rates.anyBeyond()) {
      return;
    }
    // read outside this object's lock: it asks Ratis, whose threads must never wait for this lock
    Set<String> acknowledged = acks.since(start.nanos());
    if (acknowledged == null || !Collections.disjoint(acknowledged, start.inDoubt())
        || !rates.withinBound(acknowledged)) {
      return;
    }
    synchronized (this) {
      if (suspended > 0 || start.term() <= yieldedTerm) {
        return;
      }
      long end = start.nanos() + start.lengthNanos();
      if (start.term() > term || (start.term() == term && end - until > 0)) {
        term = start.term();
        until = end;
        lengthNanos = start.lengthNanos();
        ackers = acknowledged;
      }
    }
  }

  /**
   * The term whose lease this node holds now, or -1: it must be the ready leader of that term, before the
   * lease's end, no leadership transfer may be under way ({@link #suspend}), the clock rates of the voters that
   * may have acknowledged the lease's round must be within their bound and no voter's may be beyond it
   * ({@link ClockRates}): a drift found during a lease ends it at once.
   */
  public long heldTerm() {
    long t;
    long end;
    Set<String> counted;
    synchronized (this) {
      if (term < 0 || suspended > 0 || term <= yieldedTerm) {
        return -1;
      }
      t = term;
      end = until;
      counted = ackers;
    }
    if (nanoClock.getAsLong() - end >= 0 || leadership.readyTerm() != t || !rates.withinBound(counted)
        || rates.anyBeyond()) {
      return -1;
    }
    return t;
  }

  /** Whether this node is the ready leader of its current term now (whether or not it holds the lease). */
  public boolean readyLeader() {
    return leadership.readyTerm() >= 0;
  }

  /** How long the lease still holds, ns (at most 0 when it does not); for pacing its renewal. */
  public synchronized long remainingNanos() {
    return term < 0 ? 0 : until - nanoClock.getAsLong();
  }

  /** Length of the lease last given, ns (0 before any). */
  public synchronized long lengthNanos() {
    return lengthNanos;
  }

  /**
   * A leadership transfer is starting: hold no lease until {@link #resume}. The transferee starts its election
   * without the pre-vote (Ratis {@code TransferLeadership} sends StartLeaderElection, whose election is forced),
   * so followers vote for it at once, whatever they last heard from this leader.
   */
  public synchronized void suspend() {
    suspended++;
  }

  /**
   * The transfer {@link #suspend} announced has ended, in success or not. No term up to the current one gives a
   * lease again: the transfer ran in one of them, and a forced candidate may still win later in the next.
   */
  public synchronized void resume() {
    suspended--;
    yieldedTerm = Math.max(yieldedTerm, leadership.currentTerm());
  }
}
