package io.regent.fencing;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Writers on separate connections racing with overlapping tokens, including on keys that do not exist yet
 * (the insert race): in commit order, the tokens written per key never go backwards. H2: see
 * {@link JdbcFenceTest}.
 */
class JdbcFenceConcurrencyTest {
  @ParameterizedTest
  @EnumSource(FencingMode.class)
  void committedTokensPerKeyNeverDecrease(FencingMode mode) throws Exception {
    String url = "jdbc:h2:mem:race-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=30000";
    MeterRegistry registry = new SimpleMeterRegistry();
    JdbcFence fence = new JdbcFence("fences", mode, registry);
    List<String> keys = List.of("a", "b", "c");
    try (Connection c = DriverManager.getConnection(url)) {
      fence.createTable(c);
      try (Statement st = c.createStatement()) {
        st.execute("CREATE TABLE ledger (seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
            + " fence_key VARCHAR(1024), token BIGINT)");
      }
      ThreadLocal<Connection> own = ThreadLocal.withInitial(() -> {
        try {
          return DriverManager.getConnection(url);
        } catch (java.sql.SQLException e) {
          throw new IllegalStateException(e);
        }
      });

      Race race = new Race();
      race.run(6, 300, keys, (key, token) -> JdbcFenceTest.append(fence, own.get(), key, token));

      long total = 0;
      for (String key : keys) {
        // seq is assigned under the fence row's lock, which is held to commit, so seq order is commit order.
        List<Long> log = JdbcFenceTest.tokens(c, key);
        total += log.size();
        for (int i = 1; i < log.size(); i++) {
          assertThat(mode.admits(log.get(i), log.get(i - 1))).as("%s after %s", log.get(i), log.get(i - 1))
              .isTrue();
        }
        assertThat(fence.highest(c, key)).isEqualTo(log.get(log.size() - 1));
      }
      assertThat(total).isEqualTo(race.admitted.get());
      assertThat(race.refused.get()).isPositive();
      assertThat(registry.get(FenceMetrics.REJECTED).counter().count()).isEqualTo((double) race.refused.get());
      try (Statement st = c.createStatement()) {
        st.execute("SHUTDOWN");
      }
    }
  }
}
