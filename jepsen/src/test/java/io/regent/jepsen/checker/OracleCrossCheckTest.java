package io.regent.jepsen.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.jepsen.checker.RandomSmallHistories.Proposal;
import io.regent.jepsen.history.EdnWriter;
import io.regent.jepsen.history.History;
import io.regent.jepsen.history.Op;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Compares the checker's verdict with {@link BruteForceOracle} on thousands of random small
 * histories per model, with :fail, :info and missing completions, overlapping operations, impossible
 * reads, and (for the fenced register) several keys.
 */
class OracleCrossCheckTest {
  private static final int HISTORIES = 3000;

  @Test
  void casRegisterAgreesWithBruteForce() {
    int[] verdicts = crossCheck(CasRegister.initial(), rnd -> {
      int k = rnd.nextInt(3);
      Long a = (long) rnd.nextInt(3);
      Long b = (long) rnd.nextInt(3);
      if (k == 0) {
        Object seen = rnd.nextInt(4) == 0 ? null : a;
        return new Proposal("read", null, seen, null);
      }
      return k == 1 ? new Proposal("write", a, a, null)
          : new Proposal("cas", List.of(a, b), List.of(a, b), null);
    }, 7);
    assertThat(verdicts[0]).as("valid histories generated").isGreaterThan(HISTORIES / 10);
    assertThat(verdicts[1]).as("invalid histories generated").isGreaterThan(HISTORIES / 10);
  }

  @Test
  void mutexAgreesWithBruteForce() {
    int[] verdicts = crossCheck(Mutex.initial(),
        rnd -> new Proposal(rnd.nextBoolean() ? "acquire" : "release", null, null, null), 7);
    assertThat(verdicts[0]).isGreaterThan(HISTORIES / 10);
    assertThat(verdicts[1]).isGreaterThan(HISTORIES / 10);
  }

  @Test
  void fencedRegisterPerKeyAgreesWithBruteForceOnTheWholeHistory() {
    int[] verdicts = crossCheck(new Keyed(FencedRegister.initial(), Map.of()), rnd -> {
      String name = rnd.nextBoolean() ? "a" : "b";
      Long t = (long) (1 + rnd.nextInt(5));
      return switch (rnd.nextInt(4)) {
        case 0 -> new Proposal("grant", null, t, name);
        case 1 -> new Proposal("grant", t, t, name);
        case 2 -> new Proposal("resign", null, null, name);
        default -> new Proposal("read", null, rnd.nextInt(3) == 0 ? null : t, name);
      };
    }, 8);
    assertThat(verdicts[0]).isGreaterThan(HISTORIES / 10);
    assertThat(verdicts[1]).isGreaterThan(HISTORIES / 10);
  }

  /** Returns {valid count, invalid count}; fails on the first disagreement. */
  private static int[] crossCheck(Model initial, Function<SplittableRandom, Proposal> propose,
      int maxOps) {
    SplittableRandom rnd = new SplittableRandom(20240611L);
    Model checkerModel = initial instanceof Keyed k ? k.base : initial;
    LinearizabilityChecker checker = new LinearizabilityChecker(checkerModel);
    int[] counts = new int[2];
    for (int n = 0; n < HISTORIES; n++) {
      History h = RandomSmallHistories.generate(rnd, 1 + rnd.nextInt(maxOps), 1 + rnd.nextInt(4),
          propose);
      boolean expected = BruteForceOracle.linearizable(h, initial);
      Result r = checker.check(h);
      assertThat(r.verdict())
          .as("history %d:%n%s%nchecker said: %s", n, EdnWriter.toString(h.ops()), r)
          .isEqualTo(expected ? Verdict.VALID : Verdict.INVALID);
      counts[expected ? 0 : 1]++;
    }
    return counts;
  }

  /** A product model (one base model per key), for running the oracle on the whole history. */
  static final class Keyed implements Model {
    final Model base;
    final Map<Object, Model> states;

    Keyed(Model base, Map<Object, Model> states) {
      this.base = base;
      this.states = states;
    }

    @Override
    public Model step(Op op) {
      Model now = states.getOrDefault(op.key(), base);
      Model after = now.step(op);
      if (after.isInconsistent()) {
        return after;
      }
      Map<Object, Model> copy = new HashMap<>(states);
      copy.put(op.key(), after);
      return new Keyed(base, copy);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Keyed k && k.states.equals(states);
    }

    @Override
    public int hashCode() {
      return Objects.hash(states);
    }
  }
}
