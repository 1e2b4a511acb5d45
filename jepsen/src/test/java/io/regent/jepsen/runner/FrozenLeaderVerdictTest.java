package io.regent.jepsen.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class FrozenLeaderVerdictTest {
  @Test
  void roundsWithinBothBoundsAreValid() {
    var o = FrozenLeaderVerdict.judge(List.of(new FrozenLeaderVerdict.Round("n1", 180, 1_300, 1_100),
        new FrozenLeaderVerdict.Round("n2", 1_000, 2_000, 1_500)));
    assertThat(o.valid()).isTrue();
    assertThat(o.explanation()).contains("2 rounds", "within 1000 ms", "within 2000 ms");
  }

  /** The negative control: issue #40's figures before the fix (late grant at +10.1 s, revokes at +10.03 s). */
  @Test
  void theFiguresBeforeTheFixAreInvalid() {
    var o = FrozenLeaderVerdict.judge(List.of(new FrozenLeaderVerdict.Round("n1", 7_100, 10_030, 1_200)));
    assertThat(o.valid()).isFalse();
    assertThat(o.explanation()).contains("late grant took 7100 ms", "acknowledged 10030 ms after the freeze");
  }

  @Test
  void afterTheElectionTheRevokeIsBoundedFromTheNewLeader() {
    var slowElection = List.of(new FrozenLeaderVerdict.Round("n1", 200, 2_600, 2_100));
    assertThat(FrozenLeaderVerdict.judge(slowElection).valid()).isFalse();
    assertThat(FrozenLeaderVerdict.judge(slowElection, false).valid()).isTrue();
    var slowAfter = List.of(new FrozenLeaderVerdict.Round("n1", 200, 3_000, 800));
    assertThat(FrozenLeaderVerdict.judge(slowAfter, false).explanation())
        .contains("2200 ms after the new leader's election");
    assertThat(FrozenLeaderVerdict.judge(List.of(new FrozenLeaderVerdict.Round("n1", 7_100, 10_030, 1_200)), false)
        .valid()).as("the figures before the fix, bounded from the election").isFalse();
    assertThat(FrozenLeaderVerdict.judge(List.of(new FrozenLeaderVerdict.Round("n1", 200, 1_000, -1)), false)
        .explanation()).contains("no election was seen");
  }

  @Test
  void aRefusedLateGrantOrNoRevokeIsInvalid() {
    assertThat(FrozenLeaderVerdict.judge(List.of(new FrozenLeaderVerdict.Round("n1", -1, 900, 800))).explanation())
        .contains("refused or hung");
    assertThat(FrozenLeaderVerdict.judge(List.of(new FrozenLeaderVerdict.Round("n1", 100, -1, 800))).explanation())
        .contains("no revoke");
    assertThat(FrozenLeaderVerdict.judge(List.of()).valid()).isFalse();
  }
}
