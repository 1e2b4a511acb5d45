package io.regent.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.regent.client.ClockRate.Estimate;
import io.regent.client.ClockRate.Sample;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** ClockRate on fake clocks: a node's clock in ms and a client's that runs at a chosen rate against it. */
class ClockRateTest {
  private final ClockRate rate = new ClockRate();
  /** How far the node's clock reads ahead of the client's origin, ms (nodes' clocks have origins of their own). */
  private long aheadMs;

  /**
   * A keepalive sent when the node's clock reads {@code nodeMs - rttMs / 2}, read by the node at {@code nodeMs}
   * and answered at {@code nodeMs + rttMs / 2}, with a client clock at {@code clientRate} of the node's.
   */
  private Estimate keepAlive(String node, long nodeMs, double clientRate, long rttMs) {
    long sent = clientNanos(nodeMs - rttMs / 2.0, clientRate);
    long received = clientNanos(nodeMs + rttMs / 2.0, clientRate);
    return rate.add(node, 1, new Sample(sent, received, nodeMs));
  }

  private long clientNanos(double nodeMs, double clientRate) {
    return 5_000_000_000L + (long) ((nodeMs - aheadMs) * clientRate * TimeUnit.MILLISECONDS.toNanos(1));
  }

  /** Renewals every {@code everyMs} of the node's time from node time {@code fromMs}; the last estimate. */
  private Estimate renewals(String node, long fromMs, long toMs, long everyMs, double clientRate, long rttMs) {
    Estimate last = null;
    for (long t = fromMs; t <= toMs; t += everyMs) {
      last = keepAlive(node, t, clientRate, rttMs);
    }
    return last;
  }

  @Test
  void noEstimateBeforeTheWindowSpansFiveSecondsOfTheNodesTime() {
    assertThat(renewals("n1", 100_000, 104_900, 700, 0.5, 2)).isNull();
    assertThat(keepAlive("n1", 105_000, 0.5, 2)).isNotNull();
  }

  @Test
  void aClockAtHalfSpeedIsSlowWithErrorBarsAroundTheTruth() {
    Estimate e = renewals("n1", 100_000, 106_000, 1_000, 0.5, 4);
    assertThat(e.slow()).isTrue();
    assertThat(e.fast()).isFalse();
    assertThat(e.node()).isEqualTo("n1");
    assertThat(e.low()).isLessThanOrEqualTo(0.5);
    assertThat(e.high()).isGreaterThanOrEqualTo(0.5);
    assertThat(e.rate()).isCloseTo(0.5, within(0.005));
  }

  @Test
  void aHealthyClockIsNeitherSlowNorFastAndItsIntervalHoldsOne() {
    Estimate e = renewals("n1", 100_000, 160_000, 1_000, 1.0, 5);
    assertThat(e.slow()).isFalse();
    assertThat(e.fast()).isFalse();
    assertThat(e.low()).isLessThanOrEqualTo(1.0);
    assertThat(e.high()).isGreaterThanOrEqualTo(1.0);
    assertThat(e.high() - e.low()).isLessThan(0.001); // 60 s span, 5 ms round trips
  }

  @Test
  void aClockJustAboveTheBoundIsNotSlow() {
    assertThat(renewals("n1", 100_000, 130_000, 1_000, 0.92, 5).slow()).isFalse();
    assertThat(renewals("n2", 100_000, 130_000, 1_000, 0.88, 5).slow()).isTrue();
  }

  @Test
  void longRoundTripsWidenTheErrorBarsSoNoVerdictIsMadeOnNoise() {
    // 0.85 of the node's rate, but over 5 s with 2 s round trips the interval reaches above 0.9: no verdict yet
    Estimate early = renewals("n1", 100_000, 105_000, 1_000, 0.85, 2_000);
    assertThat(early.low()).isLessThanOrEqualTo(0.85);
    assertThat(early.high()).isGreaterThanOrEqualTo(0.85).isGreaterThan(ClockRate.SLOW_BELOW);
    assertThat(early.slow()).isFalse();
    // over a longer span the same round trips weigh less and the slow clock shows
    assertThat(renewals("n1", 106_000, 150_000, 1_000, 0.85, 2_000).slow()).isTrue();
  }

  @Test
  void aFastClockIsReportedAsFast() {
    Estimate e = renewals("n1", 100_000, 106_000, 1_000, 2.0, 3);
    assertThat(e.fast()).isTrue();
    assertThat(e.slow()).isFalse();
    assertThat(e.rate()).isCloseTo(2.0, within(0.01));
  }

  @Test
  void anotherNodeOrAnotherProcessOfTheSameNodeRestartsTheWindow() {
    renewals("n1", 100_000, 110_000, 1_000, 1.0, 2);
    // n2's clock reads 3 s ahead of n1's: compared with n1's readings, its next one a client second after n1's
    // last would look like a client at 0.4 (2 s of the client's over 5 s of the readings)
    aheadMs = 3_000;
    assertThat(keepAlive("n2", 114_000, 1.0, 2)).isNull();
    assertThat(renewals("n2", 115_000, 118_000, 1_000, 1.0, 2)).isNull();
    assertThat(keepAlive("n2", 119_000, 1.0, 2).rate()).isCloseTo(1.0, within(0.001));
    // n2 restarted: same id, a new process start, here with readings that go on rising
    long sent = clientNanos(130_000, 1.0);
    assertThat(rate.add("n2", 2, new Sample(sent, sent + 1_000_000, 130_000))).isNull();
  }

  @Test
  void aClockThatTurnsSlowIsSeenWithinOneSpanAlthoughOlderSamplesAveraged() {
    renewals("n1", 100_000, 150_000, 1_000, 1.0, 2);
    // from node time 150 s on the client's clock runs at half speed (its time continues from where it was)
    long base = clientNanos(150_000, 1.0);
    Estimate e = null;
    for (long t = 151_000; t <= 156_000; t += 1_000) {
      long mid = base + TimeUnit.MILLISECONDS.toNanos((t - 150_000) / 2);
      e = rate.add("n1", 1, new Sample(mid - 1_000_000, mid + 1_000_000, t));
    }
    assertThat(e.slow()).isTrue();
    assertThat(e.spanMs()).isBetween(ClockRate.MIN_SPAN_MS, 6_000L);
  }

  @Test
  void frequentRenewalsStillGiveAVerdictOverAtMostTheLongestSpan() {
    Estimate e = renewals("n1", 100_000, 200_000, 10, 0.5, 1);
    assertThat(e.slow()).isTrue();
    assertThat(e.spanMs()).isLessThanOrEqualTo(ClockRate.MAX_SPAN_MS);
  }

  @Test
  void anAnswerBeforeItsSendIsIgnored() {
    assertThat(rate.add("n1", 1, new Sample(10, 5, 90_000))).isNull();
    assertThat(renewals("n1", 100_000, 104_000, 1_000, 1.0, 2)).isNull(); // the bad one did not count
  }
}
