package io.regent.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The admission rule at its boundaries: τ = H passes only in monotone mode, τ &lt; H never. */
class FencingGuardTest {
  private final MeterRegistry registry = new SimpleMeterRegistry();
  private final List<Long> written = new ArrayList<>();

  private FencingGuard guard(FencingMode mode) {
    return new FencingGuard(new InMemoryFenceStore(), mode, registry);
  }

  private long write(FencingGuard guard, String key, long token) {
    return guard.admit(key, token, () -> {
      written.add(token);
      return token;
    });
  }

  private double rejections(FencingMode mode) {
    return registry.get(FenceMetrics.REJECTED).tag("store", "memory")
        .tag("mode", mode.name().toLowerCase()).counter().count();
  }

  @Test
  void strictAdmitsOnlyTokensAboveTheHighest() {
    FencingGuard guard = guard(FencingMode.STRICT);
    assertThat(write(guard, "k", 5)).isEqualTo(5);
    assertThatThrownBy(() -> write(guard, "k", 5)).isInstanceOf(StaleTokenException.class);
    assertThatThrownBy(() -> write(guard, "k", 4)).isInstanceOf(StaleTokenException.class);
    write(guard, "k", 6);
    assertThat(written).containsExactly(5L, 6L);
    assertThat(guard.highest("k")).isEqualTo(6);
    assertThat(rejections(FencingMode.STRICT)).isEqualTo(2.0);
  }

  @Test
  void monotoneAdmitsTheSameTokenAgainButNeverAnOlderOne() {
    FencingGuard guard = guard(FencingMode.MONOTONE);
    write(guard, "k", 5);
    write(guard, "k", 5);
    assertThatThrownBy(() -> write(guard, "k", 4)).isInstanceOf(StaleTokenException.class);
    write(guard, "k", 7);
    assertThat(written).containsExactly(5L, 5L, 7L);
    assertThat(guard.highest("k")).isEqualTo(7);
    assertThat(rejections(FencingMode.MONOTONE)).isEqualTo(1.0);
  }

  @Test
  void rejectionNamesTheKeyTheTokenAndTheHighest() {
    FencingGuard guard = guard(FencingMode.STRICT);
    write(guard, "orders", 412);
    assertThatThrownBy(() -> write(guard, "orders", 398))
        .isInstanceOfSatisfying(StaleTokenException.class, e -> {
          assertThat(e.key()).isEqualTo("orders");
          assertThat(e.token()).isEqualTo(398);
          assertThat(e.highest()).isEqualTo(412);
          assertThat(e.mode()).isEqualTo(FencingMode.STRICT);
        })
        .hasMessageContaining("398").hasMessageContaining("412").hasMessageContaining("orders");
    assertThat(written).containsExactly(412L);
  }

  @Test
  void keysAreFencedIndependently() {
    FencingGuard guard = guard(FencingMode.STRICT);
    write(guard, "a", 9);
    write(guard, "b", 2);
    assertThat(guard.highest("a")).isEqualTo(9);
    assertThat(guard.highest("b")).isEqualTo(2);
    assertThat(guard.highest("never")).isZero();
  }

  @Test
  void aFailedWriteLeavesTheHighestUnchanged() {
    FencingGuard guard = guard(FencingMode.STRICT);
    write(guard, "k", 3);
    assertThatThrownBy(() -> guard.admit("k", 8, () -> {
      throw new IllegalStateException("disk full");
    })).hasMessage("disk full");
    assertThat(guard.highest("k")).isEqualTo(3);
    write(guard, "k", 8);
  }

  @Test
  void tokensBelowOneAreInvalid() {
    FencingGuard guard = guard(FencingMode.MONOTONE);
    assertThatThrownBy(() -> write(guard, "k", 0)).isInstanceOf(IllegalArgumentException.class);
    assertThat(written).isEmpty();
    assertThat(rejections(FencingMode.MONOTONE)).isZero();
  }
}
