package io.regent.server.confirm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The lease's clock-rate condition over every other voter (docs/architecture.md §8.1, "clock rates"). */
class ClockRateCheckTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  private long now = 1_000 * MS;
  private final AtomicReference<Set<String>> voters = new AtomicReference<>(Set.of("n1", "n2", "n3"));
  private final ClockRateCheck check = new ClockRateCheck("n1", voters::get, () -> now, ClockRateRule.DEFAULT);

  /** Three probes of each peer 500 ms apart, each peer at its rate; then 500 ms pass. */
  private void probe(double n2Rate, double n3Rate, long boot3) {
    for (int i = 0; i < 3; i++) {
      check.sample("n2", 2, new ClockRateWindow.Sample(now, now + MS, (long) (now * n2Rate)));
      check.sample("n3", boot3, new ClockRateWindow.Sample(now, now + MS, (long) (now * n3Rate)));
      now += 500 * MS;
    }
  }

  @Test
  void withinOnlyWhileEveryOtherVoterIsKnownAndWithin() {
    assertThat(check.withinBound()).isFalse(); // nothing measured
    for (int i = 0; i < 3; i++) {
      check.sample("n2", 2, new ClockRateWindow.Sample(now, now + MS, now));
      now += 500 * MS;
    }
    assertThat(check.withinBound()).as("n3 unknown").isFalse();
    probe(1.0, 1.0, 3);
    assertThat(check.withinBound()).isTrue();
    assertThat(check.withheld()).isFalse();
    assertThat(check.rate("n2")).isCloseTo(1.0, offset(0.01));
    probe(1.0, 2.0, 3);
    assertThat(check.withinBound()).as("n3 at twice n1's rate").isFalse();
    assertThat(check.withheld()).isTrue();
    assertThat(check.rate("n3")).isGreaterThan(1.1);
  }

  @Test
  void aRestartedPeerIsUnknownUntilMeasuredAgain() {
    probe(1.0, 1.0, 3);
    assertThat(check.withinBound()).isTrue();
    check.sample("n3", 4, new ClockRateWindow.Sample(now, now + MS, now)); // another boot id
    assertThat(check.withinBound()).isFalse();
    assertThat(check.rate("n3")).isNaN();
  }

  @Test
  void aNewVoterIsUnknownAndANodeWithoutVotersHoldsNoLease() {
    probe(1.0, 1.0, 3);
    voters.set(Set.of("n1", "n2", "n3", "n4"));
    assertThat(check.withinBound()).isFalse();
    voters.set(Set.of());
    assertThat(check.withinBound()).isFalse();
    voters.set(Set.of("n1", "n2"));
    assertThat(check.withinBound()).isTrue(); // n3 left: its rate does not matter
  }

  @Test
  void staleAfterTwoSecondsWithoutAnAnswer() {
    probe(1.0, 1.0, 3);
    assertThat(check.withinBound()).isTrue();
    now += 2_000 * MS;
    assertThat(check.withinBound()).isFalse();
    assertThat(check.rate("n2")).isNaN();
  }

  @Test
  void tellsOfEachPeerOnce() {
    List<String> told = new ArrayList<>();
    check.sample("n2", 2, new ClockRateWindow.Sample(now, now + MS, now));
    check.onNewPeer(told::add);
    probe(1.0, 1.0, 3);
    assertThat(told).containsExactly("n2", "n3");
  }

  /** A rate measured beyond the bound counts whoever acknowledged; an unknown or stale one (a paused voter) does not. */
  @Test
  void beyondOnlyWhileAVotersRateIsMeasuredOutsideTheBound() {
    assertThat(check.anyBeyond()).as("nothing measured: unknown, not beyond").isFalse();
    probe(1.0, 1.0, 3);
    assertThat(check.anyBeyond()).isFalse();
    probe(1.0, 2.0, 3);
    assertThat(check.anyBeyond()).as("n3 at twice n1's rate").isTrue();
    voters.set(Set.of("n1", "n2"));
    assertThat(check.anyBeyond()).as("n3 is no voter any more").isFalse();
    voters.set(Set.of("n1", "n2", "n3"));
    now += 2_000 * MS;
    assertThat(check.anyBeyond()).as("stale (n3 paused): in doubt, not beyond").isFalse();
    assertThat(check.inDoubt()).contains("n3");
  }

  @Test
  void theLeaseAsksOnlyAboutTheVotersThatMayHaveAcknowledged() {
    probe(1.0, 2.0, 3);
    assertThat(check.inDoubt()).containsExactly("n3");
    assertThat(check.withinBound(Set.of("n1", "n2"))).as("this node and n2").isTrue();
    assertThat(check.withinBound(Set.of("n2", "n3"))).isFalse();
    assertThat(check.withinBound(Set.of("n4"))).as("a voter never measured").isFalse();
    now += 2_000 * MS; // n2 and n3 stale
    assertThat(check.inDoubt()).containsExactlyInAnyOrder("n2", "n3");
    assertThat(check.withinBound(Set.of())).as("nobody else acknowledged: nothing to doubt").isTrue();
  }
}
