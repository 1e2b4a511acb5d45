package io.regent.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link JdbcFence} against a real SQL engine: H2 (com.h2database:h2, from Maven Central, test scope),
 * in memory. Chosen over PostgreSQL because it is a library, so the test needs no server process, no root
 * and no Debian package on a developer's or CI's machine, and still has what the fence relies on: real
 * transactions, row locks held to commit, and an UPDATE that re-checks its condition after waiting for a
 * lock (MVStore, READ COMMITTED, like PostgreSQL).
 */
class JdbcFenceTest {
  private final MeterRegistry registry = new SimpleMeterRegistry();
  @RegisterExtension
  final H2Database db = new H2Database("CREATE TABLE ledger (seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
      + " fence_key VARCHAR(1024), token BIGINT)");
  private Connection c;

  @BeforeEach
  void connect() {
    c = db.connection();
  }

  private JdbcFence fence(FencingMode mode) throws SQLException {
    JdbcFence fence = new JdbcFence("fences", mode, registry);
    fence.createTable(c);
    return fence;
  }

  /** The guarded write: one ledger row, in the fence's transaction. */
  static long append(JdbcFence fence, Connection c, String key, long token) throws SQLException {
    return fence.admit(c, key, token, conn -> {
      try (PreparedStatement st = conn.prepareStatement("INSERT INTO ledger (fence_key, token) VALUES (?, ?)")) {
        st.setString(1, key);
        st.setLong(2, token);
        return (long) st.executeUpdate();
      }
    });
  }

  /** The tokens written for {@code key}, in commit order. */
  static List<Long> tokens(Connection c, String key) throws SQLException {
    List<Long> out = new ArrayList<>();
    try (PreparedStatement st = c.prepareStatement("SELECT token FROM ledger WHERE fence_key = ? ORDER BY seq")) {
      st.setString(1, key);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getLong(1));
        }
      }
    }
    return out;
  }

  private double rejections() {
    return registry.get(FenceMetrics.REJECTED).tag("store", "jdbc").counter().count();
  }

  @Test
  void strictAdmitsOnlyTokensAboveTheHighest() throws SQLException {
    JdbcFence fence = fence(FencingMode.STRICT);
    append(fence, c, "k", 5);
    assertThatThrownBy(() -> append(fence, c, "k", 5)).isInstanceOf(StaleTokenException.class);
    assertThatThrownBy(() -> append(fence, c, "k", 4)).isInstanceOf(StaleTokenException.class);
    append(fence, c, "k", 6);
    assertThat(tokens(c, "k")).containsExactly(5L, 6L);
    assertThat(fence.highest(c, "k")).isEqualTo(6);
    assertThat(rejections()).isEqualTo(2.0);
    assertThat(c.getAutoCommit()).isTrue();
  }

  @Test
  void monotoneAdmitsTheSameTokenAgainButNeverAnOlderOne() throws SQLException {
    JdbcFence fence = fence(FencingMode.MONOTONE);
    append(fence, c, "k", 5);
    append(fence, c, "k", 5);
    assertThatThrownBy(() -> append(fence, c, "k", 4)).isInstanceOf(StaleTokenException.class);
    assertThat(tokens(c, "k")).containsExactly(5L, 5L);
    assertThat(fence.highest(c, "k")).isEqualTo(5);
    assertThat(rejections()).isEqualTo(1.0);
  }

  @Test
  void rejectionNamesTheKeyTheTokenAndTheHighest() throws SQLException {
    JdbcFence fence = fence(FencingMode.MONOTONE);
    append(fence, c, "orders", 412);
    assertThatThrownBy(() -> append(fence, c, "orders", 398))
        .isInstanceOfSatisfying(StaleTokenException.class, e -> {
          assertThat(e.key()).isEqualTo("orders");
          assertThat(e.token()).isEqualTo(398);
          assertThat(e.highest()).isEqualTo(412);
        });
  }

  @Test
  void aFailedWriteRollsBackTheHighest() throws SQLException {
    JdbcFence fence = fence(FencingMode.STRICT);
    append(fence, c, "k", 3);
    assertThatThrownBy(() -> fence.admit(c, "k", 9, conn -> {
      throw new SQLException("constraint violated by the application");
    })).hasMessageContaining("application");
    assertThat(fence.highest(c, "k")).isEqualTo(3);
    assertThat(c.getAutoCommit()).isTrue();
  }

  @Test
  void refusesAConnectionWithAnOpenTransactionAndAnUnsafeTableName() throws SQLException {
    JdbcFence fence = fence(FencingMode.STRICT);
    c.setAutoCommit(false);
    assertThatThrownBy(() -> append(fence, c, "k", 1)).isInstanceOf(IllegalStateException.class);
    c.setAutoCommit(true);
    assertThatThrownBy(() -> new JdbcFence("fences; DROP TABLE ledger", FencingMode.STRICT, registry))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
