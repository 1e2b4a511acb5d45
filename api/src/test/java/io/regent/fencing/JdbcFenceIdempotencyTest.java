package io.regent.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link JdbcFence#write} against H2 (see {@link JdbcFenceTest} for why H2): the rules of {@link
 * IdempotencyContract}, the record inserted in the transaction of the effect and H, and what only JDBC has (the
 * result's length limit, the transaction the fence owns). The guarded write inserts a ledger row and returns the
 * row count, the row's position; after every write, failed or not, the connection must be back in auto-commit.
 */
class JdbcFenceIdempotencyTest extends IdempotencyContract {
  @RegisterExtension
  final H2Database db = new H2Database("CREATE TABLE ledger (seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
      + " fence_key VARCHAR(1024), token BIGINT, entry VARCHAR(100))");

  @Override
  protected FenceUnderTest fence(FencingMode mode, Duration retention) throws SQLException {
    JdbcFence fence = new JdbcFence("fences", mode, registry, retention, clock);
    Connection c = db.connection();
    fence.createTable(c);
    return new FenceUnderTest() {
      @Override
      public long write(String key, long token, String idempotencyKey, String requestHash, String entry)
          throws SQLException {
        return append(fence, c, key, token, idempotencyKey, requestHash, entry);
      }

      @Override
      public void writeFailing(String key, long token, String idempotencyKey, String message) throws SQLException {
        try {
          fence.write(c, key, token, idempotencyKey, "h", JdbcFence.ResultCodec.text(), conn -> {
            throw new SQLException(message);
          });
        } finally {
          assertAutoCommit(c);
        }
      }

      @Override
      public long highest(String key) throws SQLException {
        return fence.highest(c, key);
      }

      @Override
      public List<String> entries() throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT entry FROM ledger ORDER BY seq")) {
          while (rs.next()) {
            out.add(rs.getString(1));
          }
        }
        return out;
      }

      @Override
      public long records(String key) throws SQLException {
        try (PreparedStatement st = c.prepareStatement("SELECT COUNT(*) FROM fences_idempotency WHERE fence_key = ?")) {
          st.setString(1, key);
          try (ResultSet rs = st.executeQuery()) {
            rs.next();
            return rs.getLong(1);
          }
        }
      }

      @Override
      public int purgeExpired() throws SQLException {
        return fence.purgeExpired(c);
      }

      @Override
      public String store() {
        return "jdbc";
      }

      @Override
      public Writer writer() throws SQLException {
        Connection own = DriverManager.getConnection(db.url());
        return new Writer() {
          @Override
          public long write(String key, long token, String idempotencyKey, String requestHash, String entry)
              throws SQLException {
            return append(fence, own, key, token, idempotencyKey, requestHash, entry);
          }

          @Override
          public void close() throws SQLException {
            own.close();
          }
        };
      }
    };
  }

  /** The guarded write on {@code c}: one ledger row; returns the row count then, the result a retry must get back. */
  private static long append(JdbcFence fence, Connection c, String key, long token, String idempotencyKey,
                             String requestHash, String entry) throws SQLException {
    try {
      return fence.write(c, key, token, idempotencyKey, requestHash, JdbcFence.ResultCodec.int64(), conn -> {
        try (PreparedStatement st = conn.prepareStatement(
            "INSERT INTO ledger (fence_key, token, entry) VALUES (?, ?, ?)")) {
          st.setString(1, key);
          st.setLong(2, token);
          st.setString(3, entry);
          st.executeUpdate();
        }
        try (Statement st = conn.createStatement(); ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM ledger")) {
          rs.next();
          return rs.getLong(1);
        }
      });
    } finally {
      assertAutoCommit(c);
    }
  }

  private static void assertAutoCommit(Connection c) throws SQLException {
    assertThat(c.getAutoCommit()).as("the connection is back in auto-commit").isTrue();
  }

  @Test
  void aResultTooLongAndAnOpenTransactionAreRefusedAndWriteNothing() throws Exception {
    FenceUnderTest fence = fence(FencingMode.STRICT, IdempotencyKeys.DEFAULT_RETENTION);
    JdbcFence jdbc = new JdbcFence("fences", FencingMode.STRICT, registry, IdempotencyKeys.DEFAULT_RETENTION, clock);
    Connection c = db.connection();
    assertThatThrownBy(() -> jdbc.write(c, "orders", 1, "k", "h", JdbcFence.ResultCodec.text(),
        conn -> "r".repeat(JdbcFence.MAX_RESULT_CHARS + 1))).isInstanceOf(IllegalArgumentException.class);
    assertThat(c.getAutoCommit()).isTrue();
    assertThat(fence.highest("orders")).isZero();
    assertThat(fence.records("orders")).isZero();
    c.setAutoCommit(false);
    assertThatThrownBy(() -> jdbc.write(c, "orders", 1, "k", "h", JdbcFence.ResultCodec.text(), conn -> "x"))
        .isInstanceOf(IllegalStateException.class);
    c.setAutoCommit(true);
    assertThat(fence.entries()).isEmpty();
  }
}
