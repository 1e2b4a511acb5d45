package io.regent.server.confirm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.regent.server.confirm.ClockRateWindow.Verdict;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The clock-rate estimate from probe samples (docs/architecture.md §8.1, "clock rates"): its error bars come from
 * the round trips, it is known only once precise enough, judged against the ±10 % bound, and goes stale.
 */
class ClockRateWindowTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  private final ClockRateWindow window = new ClockRateWindow(ClockRateRule.DEFAULT);
  /** This node's clock, ns. */
  private long local = 5_000 * MS;
  /** The peer's clock, ns, from another origin. */
  private long peer = 123_456 * MS;

  /**
   * One probe: the request takes {@code rttMs} / 2 to arrive, the peer reads its clock, the reply takes as long;
   * then {@code gapMs} pass until the next probe, the peer's clock running at {@code rate}.
   */
  private void probe(double rate, long rttMs, long gapMs) {
    long sent = local;
    advance(rate, rttMs * MS / 2);
    long reading = peer;
    advance(rate, rttMs * MS / 2);
    window.add(new ClockRateWindow.Sample(sent, local, reading));
    advance(rate, gapMs * MS);
  }

  private void advance(double rate, long nanos) {
    local += nanos;
    peer += (long) (nanos * rate);
  }

  private void probes(int n, double rate, long rttMs) {
    for (int i = 0; i < n; i++) {
      probe(rate, rttMs, 500);
    }
  }

  @Test
  void equalRatesAreWithinTheBoundOnceTheBaselineIsASecondLong() {
    probes(2, 1.0, 2);
    assertThat(window.verdict(local)).isEqualTo(Verdict.UNKNOWN); // 0.5 s apart: too short a baseline
    probe(1.0, 2, 0);
    assertThat(window.verdict(local)).isEqualTo(Verdict.WITHIN);
    assertThat(window.estimate().low()).isLessThanOrEqualTo(1.0);
    assertThat(window.estimate().high()).isGreaterThanOrEqualTo(1.0);
  }

  @Test
  void aRateOffByMoreThanTenPercentEitherWayIsBeyondTheBound() {
    probes(4, 0.5, 2);
    assertThat(window.verdict(local)).isEqualTo(Verdict.BEYOND);
    assertThat(window.estimate().mid()).isCloseTo(0.5, offset(0.01));

    ClockRateWindow fast = new ClockRateWindow(ClockRateRule.DEFAULT);
    long l = 0;
    long p = 0;
    for (int i = 0; i < 4; i++, l += 500 * MS, p += 560 * MS) { // 1.12
      fast.add(new ClockRateWindow.Sample(l, l + MS, p));
    }
    assertThat(fast.verdict(l)).isEqualTo(Verdict.BEYOND);
  }

  @Test
  void aRateJustInsideTheBoundIsWithin() {
    probes(4, 1.07, 2);
    assertThat(window.verdict(local)).isEqualTo(Verdict.WITHIN);
    probes(4, 0.93, 2);
    assertThat(window.verdict(local)).isEqualTo(Verdict.WITHIN);
  }

  @Test
  void theErrorBarsComeFromTheRoundTripsAndAlwaysContainTheTrueRate() {
    probes(4, 0.8, 100); // 100 ms round trips on a 1.5 s baseline: ±7 %, too imprecise
    assertThat(window.verdict(local)).isEqualTo(Verdict.UNKNOWN);
    assertThat(window.estimate()).isNull();
    probes(16, 0.8, 100); // a longer baseline (up to the 10 s window) narrows it
    ClockRateWindow.Estimate e = window.estimate();
    assertThat(e).isNotNull();
    assertThat(e.low()).isLessThanOrEqualTo(0.8);
    assertThat(e.high()).isGreaterThanOrEqualTo(0.8);
    assertThat((e.high() - e.low()) / 2).isLessThanOrEqualTo(0.02 * e.mid());
    assertThat(window.verdict(local)).isEqualTo(Verdict.BEYOND);
  }

  @Test
  void anIntervalThatCrossesTheBoundIsBeyondIt() {
    // true rate 0.9 exactly: half of the interval lies outside 0.9..1.1
    probes(6, 0.9, 10);
    assertThat(window.verdict(local)).isEqualTo(Verdict.BEYOND);
  }

  @Test
  void theRateGoesStaleTwoSecondsAfterTheLastSample() {
    probes(4, 1.0, 2);
    assertThat(window.verdict(local)).isEqualTo(Verdict.WITHIN);
    long last = local - 500 * MS; // probes() waited 500 ms after the last one
    assertThat(window.verdict(last + 2000 * MS)).isEqualTo(Verdict.WITHIN);
    assertThat(window.verdict(last + 2001 * MS)).isEqualTo(Verdict.STALE);
  }

  @Test
  void aSlowProbeLeavesTheLastEstimateStandingUntilItGoesStale() {
    probes(3, 1.0, 2);
    assertThat(window.verdict(local)).isEqualTo(Verdict.WITHIN);
    long lastPrecise = local - 500 * MS;
    probe(1.0, 400, 500); // a pause: 400 ms round trip, too imprecise on any baseline the window has yet
    probe(1.0, 400, 0);
    assertThat(window.verdict(local)).isEqualTo(Verdict.WITHIN);
    assertThat(window.verdict(lastPrecise + 2001 * MS)).isEqualTo(Verdict.STALE);
  }

  @Test
  void aRateThatChangesShowsWithinAboutASecondBothWays() {
    probes(10, 1.0, 2);
    assertThat(window.verdict(local)).isEqualTo(Verdict.WITHIN);
    probes(3, 0.5, 2); // 1.5 s at half speed
    assertThat(window.verdict(local)).isEqualTo(Verdict.BEYOND);
    probes(4, 1.0, 2); // 2 s back at full speed: the baseline has left the slow part
    assertThat(window.verdict(local)).isEqualTo(Verdict.WITHIN);
  }

  @Test
  void aPeerReadingThatGoesBackStartsOver() {
    probes(4, 1.0, 2);
    peer -= 60_000 * MS; // a restart: another monotonic origin
    probe(1.0, 2, 0);
    assertThat(window.verdict(local)).isEqualTo(Verdict.UNKNOWN);
    window.clear();
    assertThat(window.verdict(local)).isEqualTo(Verdict.UNKNOWN);
  }

  @Test
  void aRuleWhoseErrorIsNotBelowItsBoundIsRefused() {
    assertThatThrownBy(() -> new ClockRateRule(10 * MS, MS, 0.2, 0.1, MS))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("error");
    assertThatThrownBy(() -> new ClockRateRule(MS, 10 * MS, 0.01, 0.1, MS))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("span");
  }
}
