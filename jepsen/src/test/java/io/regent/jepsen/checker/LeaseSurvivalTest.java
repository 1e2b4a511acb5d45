package io.regent.jepsen.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.jepsen.checker.LeaseSurvival.Lease;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class LeaseSurvivalTest {
  static final long TTL = 3_000_000_000L;

  @Test
  void anExpiryWithinOneTtlOfTheLastAcknowledgedKeepaliveIsSpurious() {
    Lease early = new Lease(1, "n1", 10_000_000_000L, OptionalLong.of(12_999_000_000L), null, 0, 0);
    Lease late = new Lease(2, "n2", 10_000_000_000L, OptionalLong.of(13_000_000_000L), "not renewed", 0, 0);

    LeaseSurvival.Outcome o = LeaseSurvival.judge(List.of(early, late), TTL, 1);

    assertThat(early.spurious(TTL)).isTrue();
    assertThat(late.spurious(TTL)).isFalse();
    assertThat(o.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(o.spurious()).isEqualTo(1);
    assertThat(o.expired()).isEqualTo(2);
    assertThat(o.stepDowns()).isEqualTo(1);
  }

  @Test
  void everyLeaseSurvivingIsValidAndAnExpiryAfterItsTtlStillFails() {
    Lease kept = new Lease(1, "n1", 10_000_000_000L, OptionalLong.empty(), null, 0, 0);
    assertThat(LeaseSurvival.judge(List.of(kept), TTL, 2).verdict()).isEqualTo(Verdict.VALID);

    Lease expired = new Lease(2, "n2", 1_000_000_000L, OptionalLong.of(9_000_000_000L), null, 0, 0);
    LeaseSurvival.Outcome o = LeaseSurvival.judge(List.of(kept, expired), TTL, 2);
    assertThat(o.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(o.spurious()).isZero();
  }

  @Test
  void suspensionsAreCountedButDoNotFail() {
    Lease suspended = new Lease(1, "n1", 10_000_000_000L, OptionalLong.empty(), null, 2, 2_400_000_000L);
    Lease kept = new Lease(2, "n2", 10_000_000_000L, OptionalLong.empty(), null, 1, 900_000_000L);
    LeaseSurvival.Outcome o = LeaseSurvival.judge(List.of(suspended, kept), TTL, 1);
    assertThat(o.verdict()).isEqualTo(Verdict.VALID);
    assertThat(o.suspensions()).isEqualTo(3);
    assertThat(o.longestSuspensionNanos()).isEqualTo(2_400_000_000L);
    assertThat(o.explanation()).contains("3 suspensions, longest 2400 ms");
  }

  @Test
  void withoutAPauseOrALeaseNothingWasCheckedAndTheVerdictIsUnknown() {
    Lease kept = new Lease(1, "n1", 10_000_000_000L, OptionalLong.empty(), null, 0, 0);
    assertThat(LeaseSurvival.judge(List.of(kept), TTL, 0).verdict()).isEqualTo(Verdict.UNKNOWN);
    assertThat(LeaseSurvival.judge(List.of(), TTL, 1).verdict()).isEqualTo(Verdict.UNKNOWN);
  }
}
