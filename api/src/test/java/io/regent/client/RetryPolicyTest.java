package io.regent.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link RetryPolicy}'s pauses: the cap doubles up to the maximum, and each pause is jittered within the upper
 * half of its cap ("equal jitter"), so clients that failed together do not retry in lockstep.
 */
class RetryPolicyTest {
  private final RetryPolicy policy = new RetryPolicy(6, Duration.ofMillis(100), Duration.ofMillis(1_000));

  @Test
  void theCapDoublesUpToTheMaximum() {
    assertThat(new long[] {policy.capMs(0), policy.capMs(1), policy.capMs(2), policy.capMs(3), policy.capMs(4)})
        .containsExactly(100, 200, 400, 800, 1_000);
  }

  @Test
  void pausesSpreadOverTheUpperHalfOfTheCap() {
    Random random = new Random(42);
    Set<Long> seen = new HashSet<>();
    for (int i = 0; i < 1_000; i++) {
      long ms = policy.backoffMs(3, random);
      assertThat(ms).isBetween(400L, 800L);
      seen.add(ms);
    }
    // many clients drawing at once: their pauses differ, reaching both ends of the range
    assertThat(seen).hasSizeGreaterThan(300);
    assertThat(seen.stream().mapToLong(Long::longValue).min().orElseThrow()).isLessThan(420);
    assertThat(seen.stream().mapToLong(Long::longValue).max().orElseThrow()).isGreaterThan(780);
  }

  @Test
  void noBackoffStaysNoPause() {
    assertThat(RetryPolicy.ONCE.backoffMs(0, new Random(1))).isZero();
    assertThat(RetryPolicy.equalJitter(1, new Random(1))).isBetween(0L, 1L);
  }

  @Test
  void anInvertedBackoffIsRefused() {
    assertThatThrownBy(() -> new RetryPolicy(2, Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is invalid");
  }
}
