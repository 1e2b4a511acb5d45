package io.regent.jepsen.compare;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

class WindowTest {
  private static final long MS = 1_000_000;

  private static Prober.Call campaign(long startMs, long endMs, boolean ok) {
    return new Prober.Call("campaign", startMs * MS, endMs * MS, ok);
  }

  @Test
  void countsCallsEndedInTheWindowAndFindsTheLongestGapBetweenGrants() {
    List<Prober.Call> calls = List.of(
        campaign(50, 99, true),       // ended before the window: not counted
        campaign(90, 150, true),      // sent before, answered in the window: grant at 150
        campaign(160, 900, false),    // the fault: timed out
        new Prober.Call("leader", 170 * MS, 180 * MS, false),
        campaign(905, 950, true),     // next grant at 950: gap 800
        new Prober.Call("leader", 951 * MS, 960 * MS, true),
        campaign(960, 990, true),     // last grant at 990; window ends at 1000
        campaign(995, 1200, false));  // ends after the window: not counted
    JsonObject w = Window.of(calls, 100 * MS, 1000 * MS);
    assertThat(w.get("campaign_calls").getAsLong()).isEqualTo(4);
    assertThat(w.get("campaign_ok").getAsLong()).isEqualTo(3);
    assertThat(w.get("campaign_fraction").getAsDouble()).isEqualTo(0.75);
    assertThat(w.get("leader_calls").getAsLong()).isEqualTo(2);
    assertThat(w.get("leader_fraction").getAsDouble()).isEqualTo(0.5);
    assertThat(w.get("longest_gap_ms").getAsLong()).isEqualTo(800);
  }

  @Test
  void aWindowWithoutAnyGrantIsOneGapAndNoCallsIsMinusOne() {
    JsonObject w = Window.of(List.of(campaign(0, 900, true), campaign(950, 5000, false)), 1000 * MS, 4000 * MS);
    assertThat(w.get("longest_gap_ms").getAsLong()).isEqualTo(3000);
    assertThat(w.get("campaign_calls").getAsLong()).isZero();
    assertThat(w.get("campaign_fraction").getAsDouble()).isEqualTo(-1);
  }
}
