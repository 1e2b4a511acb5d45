package io.regent.jepsen.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.jepsen.checker.CatchUpChecker.Restart;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class CatchUpCheckerTest {
  static final long BOUND = 10_000;

  static Restart caughtUp(String node, long ms) {
    return new Restart(node, true, 500, OptionalLong.of(3000), OptionalLong.of(ms));
  }

  @Test
  void everyRestartCaughtUpWithinTheBoundAndNothingLostIsValid() {
    CatchUpChecker.Outcome o = CatchUpChecker.judge(List.of(caughtUp("n1", 800), caughtUp("n3", BOUND)), BOUND,
        List.of());
    assertThat(o.verdict()).isEqualTo(Verdict.VALID);
    assertThat(o.slowestMs()).isEqualTo(BOUND);
    assertThat(o.explanation()).contains("2 restarts");
  }

  @Test
  void aRestartLateNeverCaughtUpOrNeverAnsweringIsInvalid() {
    Restart late = caughtUp("n2", BOUND + 1);
    Restart wedged = new Restart("n3", true, 82_058, OptionalLong.of(4000), OptionalLong.empty());
    Restart silent = new Restart("n1", false, -1, OptionalLong.empty(), OptionalLong.empty());

    CatchUpChecker.Outcome o = CatchUpChecker.judge(List.of(caughtUp("n1", 5), late, wedged, silent), BOUND,
        List.of());

    assertThat(o.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(o.late()).isEqualTo(3);
    assertThat(o.explanation()).contains("restart 2 of n2 took 10001 ms", "restart 3 of n3 never reached commit "
        + "index 82058", "restart 4 of n1 never answered");
  }

  @Test
  void aLostAcknowledgedWriteIsInvalidEvenWhenEveryRestartCaughtUp() {
    CatchUpChecker.Outcome o = CatchUpChecker.judge(List.of(caughtUp("n1", 5)), BOUND,
        List.of("lease 7 granted (acknowledged) but gone"));
    assertThat(o.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(o.explanation()).contains("1 acknowledged writes lost", "lease 7");
  }

  @Test
  void noRestartIsUnknownNeverValid() {
    assertThat(CatchUpChecker.judge(List.of(), BOUND, List.of()).verdict()).isEqualTo(Verdict.UNKNOWN);
  }
}
