package io.regent.jepsen.checker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.regent.jepsen.checker.ExclusivityChecker.Interval;
import io.regent.jepsen.checker.ExclusivityChecker.Report;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExclusivityCheckerTest {

  @Test
  void disjointIntervalsOfDifferentClientsAreValid() {
    Report r = ExclusivityChecker.check(List.of(
        new Interval("n", "c1", 0, 100),
        new Interval("n", "c2", 101, 200),
        new Interval("n", "c1", 250, 300),
        new Interval("m", "c2", 50, 260)));   // another name may overlap
    assertThat(r.verdict()).isEqualTo(Verdict.VALID);
    assertThat(r.first()).isNull();
    assertThat(r.intervals()).isEqualTo(4);
  }

  @Test
  void sameClientIntervalsMayOverlap() {
    assertThat(ExclusivityChecker.check(List.of(
        new Interval("n", "c1", 0, 100),
        new Interval("n", "c1", 50, 150),
        new Interval("n", "c2", 151, 160))).verdict()).isEqualTo(Verdict.VALID);
  }

  @Test
  void overlappingIntervalsOfDifferentClientsAreInvalidAndTheFirstPairIsReported() {
    Report r = ExclusivityChecker.check(List.of(
        new Interval("n", "c3", 500, 700),
        new Interval("n", "c1", 0, 100),
        new Interval("n", "c2", 90, 120),
        new Interval("n", "c4", 600, 650)));
    assertThat(r.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(r.first().a()).isEqualTo(new Interval("n", "c1", 0, 100));
    assertThat(r.first().b()).isEqualTo(new Interval("n", "c2", 90, 120));
    assertThat(r.first().length()).isEqualTo(10);
    assertThat(r.explanation()).contains("c1 and c2 both believed they held n for 10 ns");
    assertThat(r.overlappingNames()).containsExactly("n");
  }

  @Test
  void anOverlapHiddenBehindALongSameClientIntervalIsFound() {
    // c1's long interval is the furthest-reaching; c2 overlaps c3 (not c1's latest) later on
    Report r = ExclusivityChecker.check(List.of(
        new Interval("n", "c2", 0, 10),
        new Interval("n", "c2", 5, 400),
        new Interval("n", "c2", 20, 30),
        new Interval("n", "c3", 399, 500)));
    assertThat(r.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(r.first().a().client()).isEqualTo("c2");
    assertThat(r.first().b().client()).isEqualTo("c3");
  }

  @Test
  void touchingEndpointsCountAsOverlap() {
    assertThat(ExclusivityChecker.check(List.of(
        new Interval("n", "c1", 0, 100),
        new Interval("n", "c2", 100, 200))).verdict()).isEqualTo(Verdict.INVALID);
  }

  @Test
  void sweepAgreesWithAllPairsOnRandomIntervals() {
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(11);
    for (int n = 0; n < 2000; n++) {
      List<Interval> list = new java.util.ArrayList<>();
      int count = 1 + rnd.nextInt(6);
      for (int i = 0; i < count; i++) {
        long s = rnd.nextInt(100);
        list.add(new Interval("n", "c" + rnd.nextInt(3), s, s + rnd.nextInt(30)));
      }
      boolean expected = false;
      for (Interval a : list) {
        for (Interval b : list) {
          expected |= !a.client().equals(b.client()) && a.overlaps(b);
        }
      }
      assertThat(ExclusivityChecker.check(list).verdict()).as("%s", list)
          .isEqualTo(expected ? Verdict.INVALID : Verdict.VALID);
    }
  }

  @Test
  void rejectsBackwardIntervals() {
    assertThatThrownBy(() -> new Interval("n", "c", 10, 5))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
