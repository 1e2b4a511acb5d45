package io.regent.fencing;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Threads racing with overlapping tokens: the admitted tokens of each key never go backwards. */
class FencingGuardConcurrencyTest {
  @ParameterizedTest
  @EnumSource(FencingMode.class)
  void admittedTokensPerKeyNeverDecrease(FencingMode mode) throws Exception {
    MeterRegistry registry = new SimpleMeterRegistry();
    FencingGuard guard = new FencingGuard(new InMemoryFenceStore(), mode, registry);
    List<String> keys = List.of("a", "b", "c");
    // Plain lists on purpose: the guard must serialize the writes of one key.
    Map<String, List<Long>> logs = new ConcurrentHashMap<>();
    keys.forEach(k -> logs.put(k, new ArrayList<>()));

    Race race = new Race();
    race.run(8, 2_000, keys, (key, token) -> guard.admit(key, token, () -> {
      Thread.yield(); // widens the window between check and update that the guard must close
      return logs.get(key).add(token);
    }));

    long total = 0;
    for (String key : keys) {
      List<Long> log = logs.get(key);
      total += log.size();
      assertThat(log).isNotEmpty();
      for (int i = 1; i < log.size(); i++) {
        assertThat(mode.admits(log.get(i), log.get(i - 1))).as("%s after %s", log.get(i), log.get(i - 1))
            .isTrue();
      }
      assertThat(guard.highest(key)).isEqualTo(log.get(log.size() - 1));
    }
    assertThat(total).isEqualTo(race.admitted.get());
    assertThat(race.refused.get()).isPositive();
    assertThat(registry.get(FenceMetrics.REJECTED).counter().count()).isEqualTo((double) race.refused.get());
  }
}
