package io.regent.jepsen.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.jepsen.bench.RandomCasHistory;
import io.regent.jepsen.history.History;
import io.regent.jepsen.history.Op;
import io.regent.jepsen.history.Operation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Budgets, per-key decomposition and large histories (bitsets of many words). */
class LinearizabilityCheckerTest {

  @Test
  void largeRandomValidHistoriesAreValid() {
    for (long seed = 1; seed <= 5; seed++) {
      History h = RandomCasHistory.generate(3000, 6, 4, 0.02, seed);
      Result r = new LinearizabilityChecker(CasRegister.initial()).check(h);
      assertThat(r.verdict()).as("seed %d: %s", seed, r).isEqualTo(Verdict.VALID);
    }
  }

  @Test
  void oneCorruptedReadInALargeHistoryIsFound() {
    History h = RandomCasHistory.generate(3000, 6, 4, 0.0, 7);
    List<Op> ops = new ArrayList<>(h.ops());
    Operation victim = h.operations().stream()
        .filter(o -> o.f().name().equals("read") && o.outcome() == Operation.Outcome.OK)
        .skip(1000).findFirst().orElseThrow();
    ops.set(victim.completionIndex(), victim.completion().withValue(99L));
    Result r = new LinearizabilityChecker(CasRegister.initial()).check(new History(ops));
    assertThat(r.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(r.ops().get(0).id()).isEqualTo(victim.id());
    assertThat(r.explanation()).contains("can't read 99");
  }

  @Test
  void exhaustedBudgetsGiveUnknownNeverAVerdict() {
    History h = RandomCasHistory.generate(2000, 8, 3, 0.05, 3);
    Result byConfigs = new LinearizabilityChecker(CasRegister.initial(),
        new Budget(Duration.ofMinutes(1), 10)).check(h);
    assertThat(byConfigs.verdict()).isEqualTo(Verdict.UNKNOWN);
    assertThat(byConfigs.explanation()).contains("configuration budget (10) ran out");
    Result byTime = new LinearizabilityChecker(CasRegister.initial(),
        new Budget(Duration.ZERO, 1_000_000)).check(h);
    assertThat(byTime.verdict()).isEqualTo(Verdict.UNKNOWN);
    assertThat(byTime.explanation()).contains("budget");
  }

  @Test
  void anInvalidKeyWinsOverAnUndecidedOne() {
    List<Op> ops = new ArrayList<>();
    ops.add(Op.invoke(0, "read", null).withKey("bad"));
    ops.add(Op.ok(0, "read", 4L).withKey("bad"));
    for (Op o : RandomCasHistory.generate(500, 5, 3, 0.0, 1).ops()) {
      ops.add(new Op(o.process() + 1, o.type(), o.f(), o.value(), o.time(), "big", o.extra()));
    }
    Result r = new LinearizabilityChecker(CasRegister.initial(),
        new Budget(Duration.ofMinutes(1), 5)).check(new History(ops));
    assertThat(r.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(r.keys()).isEqualTo(2);
    assertThat(r.explanation()).startsWith("key \"bad\": ");
  }

  @Test
  void perKeyResultsCombine() {
    List<Op> ops = new ArrayList<>();
    long offset = 0;
    for (String key : List.of("x", "y", "z")) {
      // each key's processes are its own: a process retired by an :info in one never invokes again
      offset += 1000;
      for (Op o : RandomCasHistory.generate(300, 4, 3, 0.05, key.hashCode()).ops()) {
        ops.add(new Op(o.process() + offset, o.type(), o.f(), o.value(), null, key, o.extra()));
      }
    }
    Result r = new LinearizabilityChecker(CasRegister.initial()).check(new History(ops));
    assertThat(r.verdict()).isEqualTo(Verdict.VALID);
    assertThat(r.keys()).isEqualTo(3);
    assertThat(r.opCount()).isEqualTo(900);
  }
}
