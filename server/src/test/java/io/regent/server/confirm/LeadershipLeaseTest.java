package io.regent.server.confirm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import java.util.Collections;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The leadership lease holds from a round this leader committed in its term, for 0.8 election timeouts. */
class LeadershipLeaseTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final AtomicLong ready = new AtomicLong(4);
  private final AtomicLong term = new AtomicLong(4);
  /** This node's role as the tests set it: the ready leader of {@code ready}, in {@code term}. */
  private final LeadershipLease.Leadership leadership = new LeadershipLease.Leadership() {
    @Override
    public long readyTerm() {
      return ready.get();
    }

    @Override
    public long currentTerm() {
      return term.get();
    }
  };
  private final LeadershipLease lease = new LeadershipLease(now::get, leadership, 600, LeadershipLease.SAFE_FACTOR);

  private void advanceMs(long ms) {
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
  }

  @Test
  void holdsFromTheProposalTimeForEightTenthsOfTheMinimumElectionTimeout() {
    assertThat(lease.heldTerm()).isEqualTo(-1); // no round yet
    LeadershipLease.Start start = lease.begin();
    advanceMs(100); // the round took 100 ms to commit: the lease still counts from before it was proposed
    lease.committed(start, 4);
    assertThat(lease.heldTerm()).isEqualTo(4);
    advanceMs(379);
    assertThat(lease.heldTerm()).isEqualTo(4);
    advanceMs(1); // 480 ms after the proposal
    assertThat(lease.heldTerm()).isEqualTo(-1);
  }

  @Test
  void aRoundCommittedInAnotherTermGivesNoLease() {
    LeadershipLease.Start start = lease.begin();
    lease.committed(start, 5); // a later leader committed it
    assertThat(lease.heldTerm()).isEqualTo(-1);
    ready.set(-1);
    LeadershipLease.Start notLeader = lease.begin();
    ready.set(4);
    lease.committed(notLeader, 4); // proposed while this node was not the ready leader
    assertThat(lease.heldTerm()).isEqualTo(-1);
  }

  @Test
  void endsAtOnceWhenTheNodeIsNoLongerTheReadyLeaderOfItsTerm() {
    lease.committed(lease.begin(), 4);
    ready.set(-1);
    assertThat(lease.heldTerm()).isEqualTo(-1);
    ready.set(6); // leader again, of a later term: the old lease is not its own
    assertThat(lease.heldTerm()).isEqualTo(-1);
  }

  @Test
  void aTransferEndsTheLeaseForEveryTermUpToTheCurrentOne() {
    lease.committed(lease.begin(), 4);
    lease.suspend();
    assertThat(lease.heldTerm()).isEqualTo(-1);
    LeadershipLease.Start during = lease.begin();
    lease.committed(during, 4);
    lease.resume(); // the transfer failed: still leader of term 4
    assertThat(lease.heldTerm()).isEqualTo(-1);
    lease.committed(lease.begin(), 4);
    assertThat(lease.heldTerm()).isEqualTo(-1);
    ready.set(7);
    term.set(7);
    lease.committed(lease.begin(), 7); // a later term of its own: a fresh lease
    assertThat(lease.heldTerm()).isEqualTo(7);
  }

  /** A lease of the ready leader of term 4 whose voters' smallest timing is {@code minMs} (-1: unknown). */
  private LeadershipLease leaseWith(AtomicLong minMs) {
    return new LeadershipLease(now::get, new LeadershipLease.Leadership() {
      @Override
      public long readyTerm() {
        return 4;
      }

      @Override
      public long currentTerm() {
        return 4;
      }
    }, minMs::get, LeadershipLease.SAFE_FACTOR);
  }

  @Test
  void aVoterWhoseTimingIsUnknownGivesNoLeaseAndASmallerOneAShorterLease() {
    AtomicLong minMs = new AtomicLong(-1);
    LeadershipLease l = leaseWith(minMs);
    l.committed(l.begin(), 4);
    assertThat(l.heldTerm()).as("a voter's timing unknown").isEqualTo(-1);
    minMs.set(300); // the smallest voter's: 0.8 x 300 = 240 ms
    l.committed(l.begin(), 4);
    advanceMs(239);
    assertThat(l.heldTerm()).isEqualTo(4);
    assertThat(l.lengthNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(240));
    advanceMs(1);
    assertThat(l.heldTerm()).isEqualTo(-1);
  }

  @Test
  void aRoundBegunWhileTheTimingWasUnknownGivesNoLeaseEvenIfItIsKnownByCommit() {
    AtomicLong minMs = new AtomicLong(-1);
    LeadershipLease l = leaseWith(minMs);
    LeadershipLease.Start start = l.begin();
    minMs.set(600);
    l.committed(start, 4);
    assertThat(l.heldTerm()).isEqualTo(-1);
  }
  /**
   * A lease of this test's leadership whose clock rates are checked: {@code doubt} holds the voters whose rate is in
   * doubt, {@code acked} those that may have acknowledged a round (null: this node is no longer the leader).
   */
  private LeadershipLease checkedLease(Set<String> doubt, AtomicReference<Set<String>> acked) {
    return checkedLease(doubt, ConcurrentHashMap.newKeySet(), acked);
  }

  /** As {@link #checkedLease(Set, AtomicReference)}; {@code beyond}: voters whose rate is measured beyond the bound. */
  private LeadershipLease checkedLease(Set<String> doubt, Set<String> beyond, AtomicReference<Set<String>> acked) {
    LeadershipLease.ClockRates rates = new LeadershipLease.ClockRates() {
      @Override
      public boolean withinBound(Collection<String> peers) {
        return Collections.disjoint(peers, doubt);
      }

      @Override
      public Set<String> inDoubt() {
        return Set.copyOf(doubt);
      }

      @Override
      public boolean anyBeyond() {
        return !beyond.isEmpty();
      }
    };
    return new LeadershipLease(now::get, leadership, LeadershipLease.VoterTiming.fixed(600), rates, nanos -> acked.get(),
        LeadershipLease.SAFE_FACTOR);
  }

  @Test
  void noLeaseWhileAnAcknowledgingVotersClockRateIsNotWithinTheBound() {
    Set<String> doubt = ConcurrentHashMap.newKeySet();
    LeadershipLease checked = checkedLease(doubt, new AtomicReference<>(Set.of("n2", "n3")));
    checked.committed(checked.begin(), 4);
    assertThat(checked.heldTerm()).isEqualTo(4);
    doubt.add("n3"); // a drift found during the lease ends it at once
    assertThat(checked.heldTerm()).isEqualTo(-1);
    doubt.clear();
    assertThat(checked.heldTerm()).isEqualTo(4);
    doubt.add("n3");
    LeadershipLease.Start doubtful = checked.begin();
    doubt.clear();
    checked.committed(doubtful, 4); // begun in doubt: no longer lease, although the doubt cleared before it committed
    advanceMs(400);
    assertThat(checked.heldTerm()).isEqualTo(4); // the first round's lease, 480 ms
    advanceMs(100);
    assertThat(checked.heldTerm()).isEqualTo(-1);
    checked.committed(checked.begin(), 4);
    assertThat(checked.heldTerm()).isEqualTo(4); // back with the rates
  }

  /**
   * A voter that is down or paused has a stale rate, but it answered nothing sent after the round began: no majority
   * the round counted holds it, so the lease stands on the others' clocks (before: the whole cluster confirmed by
   * rounds until it was back).
   */
  @Test
  void aVoterInDoubtThatAnsweredNothingSinceTheRoundBeganDoesNotWithholdTheLease() {
    Set<String> doubt = ConcurrentHashMap.newKeySet();
    doubt.add("n3");
    AtomicReference<Set<String>> acked = new AtomicReference<>(Set.of("n2"));
    LeadershipLease checked = checkedLease(doubt, acked);
    checked.committed(checked.begin(), 4);
    assertThat(checked.heldTerm()).isEqualTo(4);
    doubt.add("n2"); // the one it stands on drifts: it ends
    assertThat(checked.heldTerm()).isEqualTo(-1);
    doubt.remove("n2");
    // n3 answers again: a round it may have acknowledged, begun while its rate is in doubt, gives no lease
    acked.set(Set.of("n2", "n3"));
    advanceMs(300);
    checked.committed(checked.begin(), 4);
    advanceMs(200);
    assertThat(checked.heldTerm()).as("the first round's 480 ms are over; the second gave none").isEqualTo(-1);
  }

  /**
   * A voter whose clock rate is measured beyond the bound withholds the lease even when it acknowledged nothing the
   * lease stands on: its clock is broken, not silent (docs/architecture.md §8.1, "clock rates"). A paused voter's
   * rate is stale, not beyond, and withholds nothing (the previous test).
   */
  @Test
  void noLeaseWhileAnyVotersClockRateIsBeyondTheBoundWhetherOrNotItAcknowledged() {
    Set<String> doubt = ConcurrentHashMap.newKeySet();
    Set<String> beyond = ConcurrentHashMap.newKeySet();
    LeadershipLease checked = checkedLease(doubt, beyond, new AtomicReference<>(Set.of("n2")));
    checked.committed(checked.begin(), 4);
    assertThat(checked.heldTerm()).isEqualTo(4);
    doubt.add("n3");
    beyond.add("n3"); // n3, which acknowledged nothing since the round began, is found to drift: the lease ends
    assertThat(checked.heldTerm()).isEqualTo(-1);
    checked.committed(checked.begin(), 4);
    assertThat(checked.heldTerm()).as("a round committed while it drifts gives none").isEqualTo(-1);
    advanceMs(500); // the first round's 480 ms are over
    LeadershipLease.Start begunBeyond = checked.begin();
    beyond.clear();
    doubt.clear();
    checked.committed(begunBeyond, 4);
    assertThat(checked.heldTerm()).as("nor a round begun while it drifted").isEqualTo(-1);
    checked.committed(checked.begin(), 4);
    assertThat(checked.heldTerm()).as("back within the bound").isEqualTo(4);
  }

  @Test
  void noLeaseWhenThisNodeIsNoLongerTheLeaderAsTheRoundCommits() {
    LeadershipLease checked = checkedLease(ConcurrentHashMap.newKeySet(), new AtomicReference<>(null));
    checked.committed(checked.begin(), 4);
    assertThat(checked.heldTerm()).isEqualTo(-1);
  }
}
