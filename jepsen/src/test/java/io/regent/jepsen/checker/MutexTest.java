package io.regent.jepsen.checker;

import static io.regent.jepsen.history.Op.fail;
import static io.regent.jepsen.history.Op.info;
import static io.regent.jepsen.history.Op.invoke;
import static io.regent.jepsen.history.Op.ok;
import static org.assertj.core.api.Assertions.assertThat;

import io.regent.jepsen.history.History;
import io.regent.jepsen.history.Op;
import org.junit.jupiter.api.Test;

/** Hand-made histories for Knossos's mutex model. */
class MutexTest {

  static Verdict check(Op... ops) {
    return new LinearizabilityChecker(Mutex.initial()).check(History.of(ops)).verdict();
  }

  @Test
  void acquireReleaseAcquireIsValid() {
    assertThat(check(
        invoke(0, "acquire", null), ok(0, "acquire", null),
        invoke(0, "release", null), ok(0, "release", null),
        invoke(1, "acquire", null), ok(1, "acquire", null))).isEqualTo(Verdict.VALID);
  }

  @Test
  void twoHoldersAtOnceIsInvalid() {
    assertThat(check(
        invoke(0, "acquire", null), ok(0, "acquire", null),
        invoke(1, "acquire", null), ok(1, "acquire", null))).isEqualTo(Verdict.INVALID);
  }

  @Test
  void releasingAFreeMutexIsInvalid() {
    assertThat(check(invoke(0, "release", null), ok(0, "release", null))).isEqualTo(Verdict.INVALID);
  }

  @Test
  void overlappingReleaseAndAcquireMayOrder() {
    assertThat(check(
        invoke(0, "acquire", null), ok(0, "acquire", null),
        invoke(1, "acquire", null),
        invoke(0, "release", null),
        ok(1, "acquire", null),
        ok(0, "release", null))).isEqualTo(Verdict.VALID);
  }

  @Test
  void infoAcquireMayNotHaveHappened() {
    assertThat(check(
        invoke(0, "acquire", null), info(0, "acquire", null),
        invoke(1, "acquire", null), ok(1, "acquire", null))).isEqualTo(Verdict.VALID);
  }

  @Test
  void infoAcquireMayHaveHappenedAndExplainAReleaseOfAnotherProcess() {
    assertThat(check(
        invoke(0, "acquire", null), info(0, "acquire", null),
        invoke(1, "release", null), ok(1, "release", null))).isEqualTo(Verdict.VALID);
  }

  @Test
  void failedOpsAreIgnored() {
    assertThat(check(
        invoke(0, "acquire", null), ok(0, "acquire", null),
        invoke(1, "acquire", null), fail(1, "acquire", null),
        invoke(1, "release", null), fail(1, "release", null),
        invoke(0, "release", null), ok(0, "release", null))).isEqualTo(Verdict.VALID);
  }
}
