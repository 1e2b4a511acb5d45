package io.regent.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.threeten.extra.MutableClock;

/**
 * {@link JdbcFence#write} against H2 (see {@link JdbcFenceTest} for why H2): the idempotency record is inserted
 * in the transaction of the effect and H, a retry is answered from it, another request under the key refused.
 */
class JdbcFenceIdempotencyTest {
  private final MeterRegistry registry = new SimpleMeterRegistry();
  private final MutableClock clock = MutableClock.of(Instant.parse("2024-05-01T12:00:00Z"), ZoneOffset.UTC);
  @RegisterExtension
  final H2Database db = new H2Database("CREATE TABLE ledger (seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
      + " fence_key VARCHAR(1024), token BIGINT, entry VARCHAR(100))");
  private Connection c;

  @BeforeEach
  void connect() {
    c = db.connection();
  }

  private JdbcFence fence(FencingMode mode) throws SQLException {
    return fence(mode, IdempotencyKeys.DEFAULT_RETENTION);
  }

  private JdbcFence fence(FencingMode mode, Duration retention) throws SQLException {
    JdbcFence fence = new JdbcFence("fences", mode, registry, retention, clock);
    fence.createTable(c);
    return fence;
  }

  /** The guarded write: one ledger row; returns its seq, the result a retry must get back. */
  private static long append(JdbcFence fence, Connection c, long token, String idempotencyKey, String entry)
      throws SQLException {
    return fence.write(c, "orders", token, idempotencyKey, IdempotencyKeys.sha256(entry), JdbcFence.ResultCodec.int64(),
        conn -> {
          try (PreparedStatement st = conn.prepareStatement(
              "INSERT INTO ledger (fence_key, token, entry) VALUES ('orders', ?, ?)", Statement.RETURN_GENERATED_KEYS)) {
            st.setLong(1, token);
            st.setString(2, entry);
            st.executeUpdate();
            try (ResultSet keys = st.getGeneratedKeys()) {
              keys.next();
              return keys.getLong(1);
            }
          }
        });
  }

  private List<String> entries() throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT entry FROM ledger ORDER BY seq")) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  private long records() throws SQLException {
    try (Statement st = c.createStatement();
         ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM fences_idempotency")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private double rejections() {
    return registry.get(FenceMetrics.REJECTED).tag("store", "jdbc").counter().count();
  }

  @ParameterizedTest
  @EnumSource(FencingMode.class)
  void aRetryReturnsTheFirstResultAndRunsTheEffectOnce(FencingMode mode) throws SQLException {
    JdbcFence fence = fence(mode);
    long first = append(fence, c, 5, "order-1", "2 apples");
    assertThat(append(fence, c, 5, "order-1", "2 apples")).isEqualTo(first);
    assertThat(append(fence, c, 5, "order-1", "2 apples")).isEqualTo(first);
    assertThat(entries()).containsExactly("2 apples");
    assertThat(fence.highest(c, "orders")).isEqualTo(5);
    assertThat(records()).isOne();
    assertThat(c.getAutoCommit()).isTrue();
  }

  @Test
  void anotherRequestUnderTheSameKeyIsRefusedWithItsOwnError() throws SQLException {
    JdbcFence fence = fence(FencingMode.MONOTONE);
    long first = append(fence, c, 5, "order-1", "2 apples");
    assertThatThrownBy(() -> append(fence, c, 6, "order-1", "3 pears"))
        .isInstanceOfSatisfying(IdempotencyKeyReusedException.class, e -> {
          assertThat(e.key()).isEqualTo("orders");
          assertThat(e.idempotencyKey()).isEqualTo("order-1");
        });
    assertThat(entries()).containsExactly("2 apples");
    assertThat(fence.highest(c, "orders")).isEqualTo(5);
    assertThat(append(fence, c, 5, "order-1", "2 apples")).isEqualTo(first);
    assertThat(c.getAutoCommit()).isTrue();
  }

  @ParameterizedTest
  @EnumSource(FencingMode.class)
  void aStaleTokenIsStillRefusedAndRecordsNoKey(FencingMode mode) throws SQLException {
    JdbcFence fence = fence(mode);
    append(fence, c, 9, "order-1", "2 apples");
    assertThatThrownBy(() -> append(fence, c, 4, "order-2", "zombie"))
        .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.highest()).isEqualTo(9));
    assertThat(records()).isOne();
    assertThat(rejections()).isEqualTo(1.0);
    append(fence, c, 10, "order-2", "zombie");
    assertThat(entries()).containsExactly("2 apples", "zombie");
  }

  @Test
  void aFailedEffectRollsBackAndRecordsNoKey() throws SQLException {
    JdbcFence fence = fence(FencingMode.STRICT);
    assertThatThrownBy(() -> fence.write(c, "orders", 3, "order-1", "h", JdbcFence.ResultCodec.text(), conn -> {
      throw new SQLException("constraint violated by the application");
    })).hasMessageContaining("application");
    assertThat(fence.highest(c, "orders")).isZero();
    assertThat(records()).isZero();
    append(fence, c, 3, "order-1", "2 apples");
    assertThat(entries()).containsExactly("2 apples");
  }

  @Test
  void keysExpireAfterTheRetentionAndPurgeDeletesThem() throws SQLException {
    JdbcFence fence = fence(FencingMode.MONOTONE);
    long first = append(fence, c, 5, "order-1", "2 apples");
    append(fence, c, 5, "order-2", "1 fig");
    clock.add(Duration.ofHours(24).minusMillis(1));
    assertThat(append(fence, c, 5, "order-1", "2 apples")).isEqualTo(first);
    assertThat(fence.purgeExpired(c)).isZero();
    clock.add(Duration.ofMillis(1));
    long second = append(fence, c, 5, "order-1", "3 pears"); // forgotten: a new request now
    assertThat(second).isNotEqualTo(first);
    assertThat(append(fence, c, 5, "order-1", "3 pears")).isEqualTo(second);
    assertThat(entries()).containsExactly("2 apples", "1 fig", "3 pears");
    assertThat(fence.purgeExpired(c)).isOne(); // order-2's
    assertThat(records()).isOne();
  }

  @Test
  void theRetentionIsConfigurable() throws SQLException {
    JdbcFence fence = fence(FencingMode.MONOTONE, Duration.ofSeconds(30));
    append(fence, c, 5, "order-1", "2 apples");
    clock.add(Duration.ofSeconds(30));
    append(fence, c, 5, "order-1", "2 apples");
    assertThat(entries()).containsExactly("2 apples", "2 apples");
    assertThatThrownBy(() -> new JdbcFence("fences", FencingMode.MONOTONE, registry, Duration.ofSeconds(-1), clock))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void badInputIsRefusedBeforeAnyTransaction() throws SQLException {
    JdbcFence fence = fence(FencingMode.STRICT);
    assertThatThrownBy(() -> append(fence, c, 1, "", "x")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> append(fence, c, 1, "k".repeat(256), "x")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> append(fence, c, 0, "k", "x")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> fence.write(c, "orders", 1, "k", "h", JdbcFence.ResultCodec.text(),
        conn -> "r".repeat(JdbcFence.MAX_RESULT_CHARS + 1))).isInstanceOf(IllegalArgumentException.class);
    assertThat(fence.highest(c, "orders")).isZero();
    c.setAutoCommit(false);
    assertThatThrownBy(() -> append(fence, c, 1, "k", "x")).isInstanceOf(IllegalStateException.class);
    c.setAutoCommit(true);
    assertThat(entries()).isEmpty();
  }

  /** Concurrent first writes of one key on separate connections: one effect commits, every caller gets its result. */
  @ParameterizedTest
  @EnumSource(FencingMode.class)
  void concurrentRetriesOfOneKeyCommitTheEffectOnce(FencingMode mode) throws Exception {
    JdbcFence fence = fence(mode);
    int threads = 6;
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Long> answers = new ArrayList<>();
    try {
      for (int round = 0; round < 20; round++) {
        String key = "order-" + round;
        long token = 1 + round;
        List<Future<Long>> futures = new ArrayList<>();
        CountDownLatch go = round == 0 ? start : new CountDownLatch(0);
        for (int t = 0; t < threads; t++) {
          futures.add(pool.submit(() -> {
            go.await();
            try (Connection own = DriverManager.getConnection(db.url())) {
              return append(fence, own, token, key, "entry of " + key);
            }
          }));
        }
        start.countDown();
        long first = futures.get(0).get(60, TimeUnit.SECONDS);
        for (Future<Long> f : futures) {
          assertThat(f.get(60, TimeUnit.SECONDS)).as(key).isEqualTo(first);
        }
        answers.add(first);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(entries()).hasSize(20).doesNotHaveDuplicates();
    assertThat(answers).doesNotHaveDuplicates();
    assertThat(records()).isEqualTo(20);
  }
}
