package io.regent.fencing;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
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
 * <p>Idempotent writes ({@link #write}): a second table, {@code <table>_idempotency}, holds per fence key and
 * idempotency key the request hash, the first result (encoded by a {@link ResultCodec}), the token and the
 * time of the write; the row is inserted in the same transaction as the effect and H, so the three commit
 * together or not at all (Stripe's idempotency keys: result stored with the effect). Its primary key
 * {@code (fence_key, idempotency_key)} is what serializes two concurrent first writes of one key: the second
 * INSERT waits for the first's row and fails once it commits, the second transaction rolls back its effect
 * and answers from the committed row.
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

  /**
   * How the first result of an idempotent write is kept in the idempotency table's {@code result} column
   * (VARCHAR of at most {@value #MAX_RESULT_CHARS} characters) and given back to a retry.
   */
  public interface ResultCodec<T> {
    /** The text stored for {@code result}; null stores SQL NULL. */
    String encode(T result);

    /** The result a retry gets back, from the stored text (null for SQL NULL). */
    T decode(String stored);

    /** Strings as they are. */
    static ResultCodec<String> text() {
      return new ResultCodec<>() {
        @Override
        public String encode(String result) {
          return result;
        }

        @Override
        public String decode(String stored) {
          return stored;
        }
      };
    }

    /** Longs in decimal (a row count, a generated id). */
    static ResultCodec<Long> int64() {
      return new ResultCodec<>() {
        @Override
        public String encode(Long result) {
          return result == null ? null : result.toString();
        }

        @Override
        public Long decode(String stored) {
          return stored == null ? null : Long.valueOf(stored);
        }
      };
    }
  }

  /** The longest encoded result an idempotent write may store, in characters. */
  public static final int MAX_RESULT_CHARS = 4096;

  private static final Pattern TABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?");
  /** SQLSTATE class 23: integrity constraint violation (here, the key inserted by a concurrent writer). */
  private static final String CONSTRAINT_VIOLATION = "23";

  private final FencingMode mode;
  private final Counter rejected;
  private final String create;
  private final String update;
  private final String insert;
  private final String select;
  private final Duration retention;
  private final Clock clock;
  private final String createRecords;
  private final String selectRecord;
  private final String insertRecord;
  private final String deleteRecord;
  private final String purgeRecords;

  /** A fence reporting to {@link Metrics#globalRegistry}, keeping idempotency keys for 24 h. */
  public JdbcFence(String table, FencingMode mode) {
    this(table, mode, Metrics.globalRegistry);
  }

  /**
   * A fence keeping idempotency keys for {@link IdempotencyKeys#DEFAULT_RETENTION} (24 h) of the UTC clock.
   *
   * @see #JdbcFence(String, FencingMode, MeterRegistry, Duration, Clock)
   */
  public JdbcFence(String table, FencingMode mode, MeterRegistry registry) {
    this(table, mode, registry, IdempotencyKeys.DEFAULT_RETENTION, Clock.systemUTC());
  }

  /**
   * @param table the fence table, {@code name} or {@code schema.name} (it is spliced into SQL, so it must
   *     be a plain identifier)
   * @param mode strict (τ &gt; H) or monotone (τ ≥ H)
   * @param registry where {@value FenceMetrics#REJECTED} (tag {@code store=jdbc}) is registered
   * @param retention how long an idempotency key is remembered after its first write; positive, and at least
   *     the longest window in which a client retries
   * @param clock the time of idempotent writes and of expiry (stored as epoch milliseconds)
   * @throws IllegalArgumentException when {@code table} is not a plain identifier, or {@code retention} is not
   *     positive
   */
  public JdbcFence(String table, FencingMode mode, MeterRegistry registry, Duration retention, Clock clock) {
    if (!TABLE.matcher(table).matches()) {
      throw new IllegalArgumentException("not a plain SQL table name: " + table);
    }
    this.retention = IdempotencyKeys.checkRetention(retention);
    this.clock = Objects.requireNonNull(clock, "clock");
    this.mode = Objects.requireNonNull(mode, "mode");
    this.rejected = FenceMetrics.rejected(registry, "jdbc", mode);
    this.create = "CREATE TABLE IF NOT EXISTS " + table
        + " (fence_key VARCHAR(1024) PRIMARY KEY, token BIGINT NOT NULL)";
    this.update = "UPDATE " + table + " SET token = ? WHERE fence_key = ? AND ? " + mode.rule() + " token";
    this.insert = "INSERT INTO " + table + " (fence_key, token) SELECT CAST(? AS VARCHAR(1024)),"
        + " CAST(? AS BIGINT) WHERE NOT EXISTS (SELECT 1 FROM " + table + " WHERE fence_key = ?)";
    this.select = "SELECT token FROM " + table + " WHERE fence_key = ?";
    String records = table + "_idempotency";
    this.createRecords = "CREATE TABLE IF NOT EXISTS " + records + " (fence_key VARCHAR(1024) NOT NULL,"
        + " idempotency_key VARCHAR(" + IdempotencyKeys.MAX_KEY_LENGTH + ") NOT NULL,"
        + " request_hash VARCHAR(" + IdempotencyKeys.MAX_HASH_LENGTH + ") NOT NULL,"
        + " result VARCHAR(" + MAX_RESULT_CHARS + "), token BIGINT NOT NULL, created_ms BIGINT NOT NULL,"
        + " PRIMARY KEY (fence_key, idempotency_key))";
    this.selectRecord = "SELECT request_hash, result, created_ms FROM " + records
        + " WHERE fence_key = ? AND idempotency_key = ?";
    this.insertRecord = "INSERT INTO " + records
        + " (fence_key, idempotency_key, request_hash, result, token, created_ms) VALUES (?, ?, ?, ?, ?, ?)";
    this.deleteRecord = "DELETE FROM " + records + " WHERE fence_key = ? AND idempotency_key = ? AND created_ms = ?";
    this.purgeRecords = "DELETE FROM " + records + " WHERE created_ms <= ?";
  }

  /**
   * Creates the fence table and its idempotency table ({@code <table>_idempotency}) when they do not exist.
   */
  public void createTable(Connection c) throws SQLException {
    for (String sql : new String[] {create, createRecords}) {
      try (PreparedStatement st = c.prepareStatement(sql)) {
        st.executeUpdate();
      }
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

  /**
   * The idempotent {@link #admit}: in one transaction on {@code c}, looks up {@code idempotencyKey} for
   * {@code key}; a live record with {@code requestHash} answers with its first result (decoded by
   * {@code codec}) and nothing runs or changes; a live record with another hash is refused; otherwise τ is
   * admitted as by {@link #admit}, {@code effect} runs, and the record (hash, encoded result, τ, now) is
   * inserted, all committed together. A record is live for the retention from its write; an expired one is
   * replaced. Rules and their order: {@link IdempotencyKeys} (Stripe's idempotency keys).
   *
   * <p>The connection must be in auto-commit mode and is again when this returns.
   *
   * @param key the resource key; idempotency keys are scoped to it
   * @param token τ, at least 1
   * @param idempotencyKey the client's name for this request, the same on every retry: 1 to 255 characters
   * @param requestHash a digest of the request's parameters, 1 to 255 characters
   * @param codec how the result is stored for a retry; its text must be at most {@value #MAX_RESULT_CHARS}
   *     characters
   * @param effect the guarded write on {@code c}; it does not run on a replay
   * @return what {@code effect} returned, now or (decoded) at the key's first write
   * @throws StaleTokenException naming τ and H when the key is not on record and τ is refused; nothing ran or
   *     was recorded
   * @throws IdempotencyKeyReusedException when the key is on record with another request hash; nothing ran
   * @throws SQLException from the database or {@code effect} (rolled back, nothing recorded); retrying with
   *     the same key is safe
   * @throws IllegalArgumentException when τ is below 1, a key or hash is empty or too long, or the encoded
   *     result is too long (rolled back)
   * @throws IllegalStateException when {@code c} has a transaction open
   */
  public <T> T write(Connection c, String key, long token, String idempotencyKey, String requestHash,
                     ResultCodec<T> codec, SqlWrite<T> effect) throws SQLException {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(codec, "codec");
    Objects.requireNonNull(effect, "effect");
    if (token < 1) {
      throw new IllegalArgumentException("fencing token must be at least 1, got " + token);
    }
    IdempotencyKeys.checkKey(idempotencyKey);
    IdempotencyKeys.checkHash(requestHash);
    if (!c.getAutoCommit()) {
      throw new IllegalStateException("JdbcFence.write owns the transaction: pass a connection in auto-commit");
    }
    c.setAutoCommit(false);
    try {
      for (int attempt = 1; ; attempt++) {
        long now = clock.millis();
        Record seen = record(c, key, idempotencyKey, now);
        if (seen != null && seen.live) {
          return replay(c, seen, key, idempotencyKey, requestHash, codec);
        }
        if (!advance(c, key, token)) {
          // A concurrent first write of this key may have committed while the UPDATE waited for the row.
          Record committed = record(c, key, idempotencyKey, now);
          if (committed != null && committed.live) {
            return replay(c, committed, key, idempotencyKey, requestHash, codec);
          }
          long highest = highest(c, key);
          rejected.increment();
          throw new StaleTokenException(key, token, highest, mode);
        }
        T result = effect.write(c);
        String encoded = codec.encode(result);
        if (encoded != null && encoded.length() > MAX_RESULT_CHARS) {
          throw new IllegalArgumentException("the encoded result is " + encoded.length()
              + " characters, above the limit of " + MAX_RESULT_CHARS);
        }
        if (seen != null) {
          deleteRecord(c, key, idempotencyKey, seen.createdMs);
        }
        try {
          insertRecord(c, key, idempotencyKey, requestHash, encoded, token, now);
        } catch (SQLException e) {
          String state = e.getSQLState();
          if (attempt > 1 || state == null || !state.startsWith(CONSTRAINT_VIOLATION)) {
            throw e;
          }
          // A concurrent first write of this key committed first: undo this one's effect and H, then answer
          // from its record in a new transaction.
          c.rollback();
          continue;
        }
        c.commit();
        return result;
      }
    } catch (SQLException | RuntimeException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
  }

  /**
   * Deletes every expired idempotency record (written at least the retention ago) of every key, in auto-commit;
   * {@link #write} replaces an expired record of the key it writes, so this only keeps the table small. Run it
   * now and then (e.g. hourly).
   *
   * @return how many records were deleted
   */
  public int purgeExpired(Connection c) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(purgeRecords)) {
      st.setLong(1, clock.millis() - retention.toMillis());
      return st.executeUpdate();
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

  private record Record(String requestHash, String result, long createdMs, boolean live) {
  }

  private Record record(Connection c, String key, String idempotencyKey, long now) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(selectRecord)) {
      st.setString(1, key);
      st.setString(2, idempotencyKey);
      try (ResultSet rs = st.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        long created = rs.getLong(3);
        return new Record(rs.getString(1), rs.getString(2), created, created > now - retention.toMillis());
      }
    }
  }

  private static <T> T replay(Connection c, Record seen, String key, String idempotencyKey, String requestHash,
                              ResultCodec<T> codec) throws SQLException {
    if (!seen.requestHash.equals(requestHash)) {
      throw new IdempotencyKeyReusedException(key, idempotencyKey);
    }
    c.commit(); // nothing written: ends the read
    return codec.decode(seen.result);
  }

  private void insertRecord(Connection c, String key, String idempotencyKey, String requestHash, String result,
                            long token, long now) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(insertRecord)) {
      st.setString(1, key);
      st.setString(2, idempotencyKey);
      st.setString(3, requestHash);
      st.setString(4, result);
      st.setLong(5, token);
      st.setLong(6, now);
      st.executeUpdate();
    }
  }

  private void deleteRecord(Connection c, String key, String idempotencyKey, long createdMs) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(deleteRecord)) {
      st.setString(1, key);
      st.setString(2, idempotencyKey);
      st.setLong(3, createdMs);
      st.executeUpdate();
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
