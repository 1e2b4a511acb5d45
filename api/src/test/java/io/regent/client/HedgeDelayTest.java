package io.regent.client;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** When a renewal goes to the next endpoint too (see {@link Calls#hedgeAfterMs}). */
class HedgeDelayTest {
  @Test
  void aKeepaliveWhoseNodeWentSilentLeavesThreeQuartersOfItsBudgetToTheNextNode() {
    long budget = 1_000; // TTL 3 s: a keepalive sent ttl/3 after the last acknowledged one has 1 s left
    // before: half (500 ms), and a Jepsen run saw the next node's confirmation miss the other half
    assertThat(budget - Calls.hedgeAfterMs(budget, 5_000)).isGreaterThanOrEqualTo(budget * 3 / 4);
  }

  @Test
  void theDelayStaysWithinTheMinimumAttemptAndTheAttemptTimeout() {
    assertThat(Calls.hedgeAfterMs(40, 5_000)).isEqualTo(Calls.MIN_ATTEMPT_MS);
    assertThat(Calls.hedgeAfterMs(60_000, 5_000)).isEqualTo(5_000);
  }
}
