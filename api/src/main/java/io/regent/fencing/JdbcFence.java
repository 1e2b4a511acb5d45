package io.regent.fencing;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Fencing for a resource that is a SQL database: H lives in a table of the same database, and the check
 * and the update of H are ONE conditional statement in the same transaction as the caller's write:
 * <pre>UPDATE fences SET token = τ WHERE fence_key = ? AND τ &gt; token   -- strict (monotone: &gt;=)</pre>
 * The statement holds the row's lock until commit, so writers of one key are serialized and a writer whose
 * token was overtaken while it waited re-evaluates the condition against the committed H and updates no
 * row (PostgreSQL and H2 both re-check after the lock wait under READ COMMITTED). A key seen for the first
 * time is inserted with {@code INSERT … SELECT … WHERE NOT EXISTS}. Rules: Kleppmann, "How to do
 * distributed locking"; Chubby sequencers (docs/architecture.md §5).
 *
 * <p>Only standard SQL is used; it is tested against H2 (embedded, see {@code JdbcFenceTest}) and written
 * for PostgreSQL too. On MySQL, the driver must report matched rather than changed rows (Connector/J's
 * default), or a monotone re-write with τ = H would look refused.
 *
 * <p>Thread-safe: keeps no state besides the counter; each call uses the caller's connection.
 */
public final class JdbcFence {
  /** A write made on the fence's connection, inside its transaction. */
  @FunctionalInterface
  public interface SqlWrite<T> {
    /** Performs the write on {@code c}; must not commit, roll back or change auto-commit. */
    T write(Connection c) throws SQLException;
  }

  private static final Pattern TABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?");
  /** SQLSTATE class 23: integrity constraint violation (here, the key inserted by a concurrent writer). */
  private static final String CONSTRAINT_VIOLATION = "23";

  private final FencingMode mode;
  private final Counter rejected;
  private final String create;
  private final String update;
  private final String insert;
  private final String select;

  /** A fence reporting to {@link Metrics#globalRegistry}. */
  public JdbcFence(String table, FencingMode mode) {
    this(table, mode, Metrics.globalRegistry);
  }

  /**
   * @param table the fence table, {@code name} or {@code schema.name} (it is spliced into SQL, so it must
   *     be a plain identifier)
   * @param mode strict (τ &gt; H) or monotone (τ ≥ H)
   * @param registry where {@value FenceMetrics#REJECTED} (tag {@code store=jdbc}) is registered
   * @throws IllegalArgumentException when {@code table} is not a plain identifier
   */
  public JdbcFence(String table, FencingMode mode, MeterRegistry registry) {
    if (!TABLE.matcher(table).matches()) {
      throw new IllegalArgumentException("not a plain SQL table name: " + table);
    }
    this.mode = Objects.requireNonNull(mode, "mode");
    this.rejected = FenceMetrics.rejected(registry, "jdbc", mode);
    this.create = "CREATE TABLE IF NOT EXISTS " + table
        + " (fence_key VARCHAR(1024) PRIMARY KEY, token BIGINT NOT NULL)";
    this.update = "UPDATE " + table + " SET token = ? WHERE fence_key = ? AND ? " + mode.rule() + " token";
    this.insert = "INSERT INTO " + table + " (fence_key, token) SELECT CAST(? AS VARCHAR(1024)),"
        + " CAST(? AS BIGINT) WHERE NOT EXISTS (SELECT 1 FROM " + table + " WHERE fence_key = ?)";
    this.select = "SELECT token FROM " + table + " WHERE fence_key = ?";
  }

  /** Creates the fence table when it does not exist. */
  public void createTable(Connection c) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(create)) {
      st.executeUpdate();
    }
  }

  /**
   * In one transaction on {@code c}: admits {@code token} for {@code key} (setting H to it), runs
   * {@code write}, and commits; on any failure rolls back, so H and the write change together or not at
   * all. The connection must be in auto-commit mode (no transaction of the caller's open) and is again
   * when this returns.
   *
   * @param token τ, at least 1
   * @return what {@code write} returned
   * @throws StaleTokenException naming τ and H when refused; {@code write} did not run
   * @throws SQLException from the database or {@code write}; retrying with the same token is safe
   * @throws IllegalStateException when {@code c} has a transaction open
   */
  public <T> T admit(Connection c, String key, long token, SqlWrite<T> write) throws SQLException {
    Objects.requireNonNull(key, "key");
    if (token < 1) {
      throw new IllegalArgumentException("fencing token must be at least 1, got " + token);
    }
    if (!c.getAutoCommit()) {
      throw new IllegalStateException("JdbcFence.admit owns the transaction: pass a connection in auto-commit");
    }
    c.setAutoCommit(false);
    try {
      if (!advance(c, key, token)) {
        long highest = highest(c, key);
        rejected.increment();
        throw new StaleTokenException(key, token, highest, mode);
      }
      T result = write.write(c);
      c.commit();
      return result;
    } catch (SQLException | RuntimeException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
  }

  /** H for {@code key} as {@code c} sees it: the highest admitted token, or 0 when none. */
  public long highest(Connection c, String key) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(select)) {
      st.setString(1, key);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    }
  }

  /** Sets H to τ if the mode admits it; false when refused. */
  private boolean advance(Connection c, String key, long token) throws SQLException {
    if (conditionalUpdate(c, key, token)) {
      return true;
    }
    try (PreparedStatement st = c.prepareStatement(insert)) {
      st.setString(1, key);
      st.setLong(2, token);
      st.setString(3, key);
      return st.executeUpdate() == 1;
    } catch (SQLException e) {
      String state = e.getSQLState();
      if (state == null || !state.startsWith(CONSTRAINT_VIOLATION)) {
        throw e;
      }
      // A concurrent writer inserted the key first and committed; PostgreSQL has aborted this transaction,
      // so start a new one (nothing of the caller's has run yet) and judge τ against the committed H.
      c.rollback();
      return conditionalUpdate(c, key, token);
    }
  }

  private boolean conditionalUpdate(Connection c, String key, long token) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(update)) {
      st.setLong(1, token);
      st.setString(2, key);
      st.setLong(3, token);
      return st.executeUpdate() == 1;
    }
  }
}
