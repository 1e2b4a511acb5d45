package io.regent.jepsen.checker;

import static io.regent.jepsen.history.Op.fail;
import static io.regent.jepsen.history.Op.info;
import static io.regent.jepsen.history.Op.invoke;
import static io.regent.jepsen.history.Op.ok;
import static org.assertj.core.api.Assertions.assertThat;

import io.regent.jepsen.history.History;
import io.regent.jepsen.history.Op;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Hand-made cas-register histories: valid, invalid and concurrent edge cases. */
class CasRegisterTest {

  static Result check(Op... ops) {
    return new LinearizabilityChecker(CasRegister.initial()).check(History.of(ops));
  }

  static List<Long> cas(long from, long to) {
    return List.of(from, to);
  }

  @Test
  void sequentialHistoryIsValid() {
    Result r = check(
        invoke(0, "write", 1L), ok(0, "write", 1L),
        invoke(1, "read", null), ok(1, "read", 1L),
        invoke(0, "cas", cas(1, 2)), ok(0, "cas", cas(1, 2)),
        invoke(1, "read", null), ok(1, "read", 2L));
    assertThat(r.verdict()).isEqualTo(Verdict.VALID);
    assertThat(r.opCount()).isEqualTo(4);
    assertThat(r.ops()).isEmpty();
  }

  @Test
  void readOfAValueNeverWrittenIsInvalidAndExplained() {
    Result r = check(
        invoke(0, "write", 1L), ok(0, "write", 1L),
        invoke(1, "read", null), ok(1, "read", 5L));
    assertThat(r.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(r.explanation()).contains("can't read 5 from register 1")
        .contains("longest linearizable prefix has 1 operation");
    assertThat(r.ops().get(0).effective()).isEqualTo(ok(1, "read", 5L));
  }

  @Test
  void staleReadAfterACompletedWriteIsInvalid() {
    assertThat(check(
        invoke(0, "write", 1L), ok(0, "write", 1L),
        invoke(0, "write", 2L), ok(0, "write", 2L),
        invoke(1, "read", null), ok(1, "read", 1L)).verdict()).isEqualTo(Verdict.INVALID);
  }

  @Test
  void okReadOfNilMeansTheRegisterWasNil() {
    assertThat(check(invoke(0, "read", null), ok(0, "read", null)).verdict())
        .isEqualTo(Verdict.VALID);
    assertThat(check(
        invoke(0, "write", 1L), ok(0, "write", 1L),
        invoke(1, "read", null), ok(1, "read", null)).verdict()).isEqualTo(Verdict.INVALID);
  }

  @Test
  void overlappingWritesMayTakeEffectInEitherOrder() {
    // two concurrent writes; concurrent reads may see them in either order...
    assertThat(check(
        invoke(0, "write", 1L), invoke(1, "write", 2L),
        invoke(2, "read", null), ok(2, "read", 2L),
        invoke(3, "read", null), ok(3, "read", 1L),
        ok(0, "write", 1L), ok(1, "write", 2L)).verdict()).isEqualTo(Verdict.VALID);
    // ...but once both completed, the value is fixed: reading 2 then 1 is impossible
    assertThat(check(
        invoke(0, "write", 1L), invoke(1, "write", 2L),
        ok(0, "write", 1L), ok(1, "write", 2L),
        invoke(2, "read", null), ok(2, "read", 2L),
        invoke(3, "read", null), ok(3, "read", 1L)).verdict()).isEqualTo(Verdict.INVALID);
  }

  @Test
  void aReadMaySeeAWriteThatHasNotCompletedYet() {
    assertThat(check(
        invoke(0, "write", 1L),
        invoke(1, "read", null), ok(1, "read", 1L),
        ok(0, "write", 1L)).verdict()).isEqualTo(Verdict.VALID);
  }

  @Test
  void realTimeOrderIsRespected() {
    // write 1 completes before write 2 starts; a later read of 1 is stale
    assertThat(check(
        invoke(0, "write", 1L), ok(0, "write", 1L),
        invoke(1, "write", 2L), ok(1, "write", 2L),
        invoke(2, "read", null), ok(2, "read", 1L)).verdict()).isEqualTo(Verdict.INVALID);
  }

  @Test
  void failedCasDidNotHappen() {
    assertThat(check(
        invoke(0, "cas", cas(0, 5)), fail(0, "cas", cas(0, 5)),
        invoke(1, "read", null), ok(1, "read", null)).verdict()).isEqualTo(Verdict.VALID);
    assertThat(check(
        invoke(0, "write", 0L), ok(0, "write", 0L),
        invoke(0, "cas", cas(0, 5)), fail(0, "cas", cas(0, 5)),
        invoke(1, "read", null), ok(1, "read", 5L)).verdict()).isEqualTo(Verdict.INVALID);
  }

  @Test
  void okCasFromTheWrongValueIsInvalid() {
    Result r = check(
        invoke(0, "write", 3L), ok(0, "write", 3L),
        invoke(0, "cas", cas(1, 2)), ok(0, "cas", cas(1, 2)));
    assertThat(r.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(r.explanation()).contains("can't CAS 3 from 1 to 2");
  }

  @Test
  void infoWriteMayOrMayNotHaveTakenEffect() {
    Op[] prefix = {invoke(0, "write", 1L), info(0, "write", 1L)};
    assertThat(check(concat(prefix, invoke(1, "read", null), ok(1, "read", 1L))).verdict())
        .isEqualTo(Verdict.VALID);
    assertThat(check(concat(prefix, invoke(1, "read", null), ok(1, "read", null))).verdict())
        .isEqualTo(Verdict.VALID);
    // it may even take effect long after its :info, between two later reads
    assertThat(check(concat(prefix,
        invoke(1, "read", null), ok(1, "read", null),
        invoke(1, "read", null), ok(1, "read", 1L))).verdict()).isEqualTo(Verdict.VALID);
    // but at most once: 1, then nil, is impossible
    assertThat(check(concat(prefix,
        invoke(1, "read", null), ok(1, "read", 1L),
        invoke(1, "read", null), ok(1, "read", null))).verdict()).isEqualTo(Verdict.INVALID);
    // and not before its invoke
    assertThat(check(
        invoke(1, "read", null), ok(1, "read", 1L),
        invoke(0, "write", 1L), info(0, "write", 1L)).verdict()).isEqualTo(Verdict.INVALID);
  }

  @Test
  void missingCompletionIsLikeInfo() {
    assertThat(check(
        invoke(0, "write", 0L), ok(0, "write", 0L),
        invoke(2, "cas", cas(0, 7)),
        invoke(1, "read", null), ok(1, "read", 0L),
        invoke(1, "read", null), ok(1, "read", 7L),
        invoke(1, "read", null), ok(1, "read", 7L)).verdict()).isEqualTo(Verdict.VALID);
    assertThat(check(
        invoke(0, "write", 0L), ok(0, "write", 0L),
        invoke(2, "cas", cas(0, 7)),
        invoke(1, "read", null), ok(1, "read", 7L),
        invoke(1, "read", null), ok(1, "read", 0L)).verdict()).isEqualTo(Verdict.INVALID);
  }

  @Test
  void indeterminateCasThatCouldNotApplyIsSkipped() {
    assertThat(check(
        invoke(0, "write", 0L), ok(0, "write", 0L),
        invoke(1, "cas", cas(4, 1)), info(1, "cas", cas(4, 1)),
        invoke(2, "read", null), ok(2, "read", 0L)).verdict()).isEqualTo(Verdict.VALID);
  }

  @Test
  void unseenReadsAndNemesisEventsConstrainNothing() {
    assertThat(check(
        invoke(0, "read", null), info(0, "read", null),
        info(Op.NEMESIS, "kill", null),
        invoke(1, "read", null),
        invoke(2, "read", null), ok(2, "read", null)).verdict()).isEqualTo(Verdict.VALID);
  }

  @Test
  void manyIdenticalCrashedWritesStayCheapEvenWhenTheSearchMustBeExhaustive() {
    // 40 crashed writes (20 of 0, 20 of 1) then reads 0,1,0,1,...: each read needs one of them. The
    // writes of one value are interchangeable, so the search only counts how many of each were used;
    // without that, an exhaustive search would face 2^40 subsets.
    Op[] ops = new Op[0];
    for (int p = 0; p < 40; p++) {
      ops = concat(ops, invoke(p, "write", (long) (p % 2)), info(p, "write", (long) (p % 2)));
    }
    for (int i = 0; i < 40; i++) {
      ops = concat(ops, invoke(100, "read", null), ok(100, "read", (long) (i % 2)));
    }
    Result valid = check(ops);
    assertThat(valid.verdict()).isEqualTo(Verdict.VALID);
    Result invalid = check(concat(ops, invoke(100, "read", null), ok(100, "read", 5L)));
    assertThat(invalid.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(invalid.configurations()).isLessThan(100_000);
  }

  @Test
  void emptyHistoryIsValidOnlyVacuously() {
    Result r = check();
    assertThat(r.verdict()).as("as in Knossos").isEqualTo(Verdict.VALID);
    assertThat(r.keys()).as("nothing was searched").isZero();
    assertThat(r.explanation()).startsWith("vacuously linearizable");
  }

  static Op[] concat(Op[] a, Op... b) {
    Op[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
