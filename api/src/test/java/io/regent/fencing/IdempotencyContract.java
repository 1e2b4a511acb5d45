package io.regent.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.threeten.extra.MutableClock;

/**
 * The rules of an idempotent fenced write, written once: Stripe's idempotency keys at the fenced resource
 * ({@link IdempotencyKeys}; docs/architecture.md §5, "Idempotency keys"). Each implementation runs them through a
 * small subclass that binds {@link #fence} to it: {@link FencingGuardIdempotencyTest} ({@link FencingGuard} over
 * {@link InMemoryFenceStore}) and {@link JdbcFenceIdempotencyTest} ({@link JdbcFence} on H2). What only one
 * implementation has stays in its subclass. The ledger's LMDB store applies the same rules without a
 * {@link FenceStore}; the ledger module tests it (its {@code LedgerIdempotencyTest}), since binding it here would
 * need a test-jar of this module.
 *
 * <p>The guarded write of every test appends an entry to the resource's log and returns the entry's position in
 * it (1 for the first): the result a retry must get back.
 */
abstract class IdempotencyContract {
  /** The time of writes and of expiry; tests move it. */
  protected final MutableClock clock = MutableClock.of(Instant.parse("2024-05-01T12:00:00Z"), ZoneOffset.UTC);
  /** Where the fence under test registers {@value FenceMetrics#REJECTED}. */
  protected final MeterRegistry registry = new SimpleMeterRegistry();

  /** Makes idempotent fenced writes; one per thread (a JDBC writer holds a connection). */
  interface Writer extends AutoCloseable {
    /**
     * An idempotent write whose effect appends {@code entry} to the resource's log.
     *
     * @return the entry's position in the log, now or at the idempotency key's first write
     */
    long write(String key, long token, String idempotencyKey, String requestHash, String entry) throws Exception;

    /** Releases what this writer holds; nothing by default. */
    @Override
    default void close() throws Exception {
    }
  }

  /** The implementation under test: a {@link Writer} for the test's thread, and what the rules are checked by. */
  interface FenceUnderTest extends Writer {
    /** An idempotent write whose effect fails with {@code message}. */
    void writeFailing(String key, long token, String idempotencyKey, String message) throws Exception;

    /** H for {@code key}. */
    long highest(String key) throws Exception;

    /** Every entry in the resource's log, in order. */
    List<String> entries() throws Exception;

    /** How many idempotency records {@code key} holds, expired ones not yet dropped included. */
    long records(String key) throws Exception;

    /** Drops the expired idempotency records of every key; returns how many. */
    int purgeExpired() throws Exception;

    /** The {@code store} tag of its {@value FenceMetrics#REJECTED}. */
    String store();

    /** A writer for another thread. */
    Writer writer() throws Exception;
  }

  /**
   * The implementation under test, on {@link #clock} and {@link #registry}.
   *
   * @param retention how long it keeps an idempotency key
   * @throws IllegalArgumentException when {@code retention} is not positive
   */
  protected abstract FenceUnderTest fence(FencingMode mode, Duration retention) throws Exception;

  private FenceUnderTest fence(FencingMode mode) throws Exception {
    return fence(mode, IdempotencyKeys.DEFAULT_RETENTION);
  }

  private static long write(Writer fence, long token, String idempotencyKey, String entry) throws Exception {
    return fence.write("orders", token, idempotencyKey, IdempotencyKeys.sha256(entry), entry);
  }

  private double rejections(FenceUnderTest fence, FencingMode mode) {
    return registry.get(FenceMetrics.REJECTED).tag("store", fence.store())
        .tag("mode", mode.name().toLowerCase(Locale.ROOT)).counter().count();
  }

  @ParameterizedTest
  @EnumSource(FencingMode.class)
  void aRetryReturnsTheFirstResultAndRunsTheEffectOnce(FencingMode mode) throws Exception {
    FenceUnderTest fence = fence(mode);
    assertThat(write(fence, 5, "order-1", "2 apples")).isEqualTo(1);
    // strict mode would refuse token 5 again: the retry is answered from the record before the token check
    assertThat(write(fence, 5, "order-1", "2 apples")).isEqualTo(1);
    assertThat(write(fence, 5, "order-1", "2 apples")).isEqualTo(1);
    assertThat(fence.entries()).containsExactly("2 apples");
    assertThat(fence.highest("orders")).isEqualTo(5);
    assertThat(fence.records("orders")).isOne();
    assertThat(rejections(fence, mode)).isZero();
  }

  @Test
  void anotherRequestUnderTheSameKeyIsRefusedWithItsOwnError() throws Exception {
    FenceUnderTest fence = fence(FencingMode.MONOTONE);
    write(fence, 5, "order-1", "2 apples");
    assertThatThrownBy(() -> write(fence, 6, "order-1", "3 pears"))
        .isInstanceOfSatisfying(IdempotencyKeyReusedException.class, e -> {
          assertThat(e.key()).isEqualTo("orders");
          assertThat(e.idempotencyKey()).isEqualTo("order-1");
        })
        .isNotInstanceOf(StaleTokenException.class)
        .hasMessageContaining("'order-1'").hasMessageContaining("another request");
    assertThat(fence.entries()).containsExactly("2 apples");
    assertThat(fence.highest("orders")).isEqualTo(5);
    assertThat(write(fence, 5, "order-1", "2 apples")).isEqualTo(1);
    assertThat(rejections(fence, FencingMode.MONOTONE)).isZero();
  }

  @ParameterizedTest
  @EnumSource(FencingMode.class)
  void aStaleTokenIsStillRefusedAndRecordsNoKey(FencingMode mode) throws Exception {
    FenceUnderTest fence = fence(mode);
    write(fence, 9, "order-1", "2 apples");
    assertThatThrownBy(() -> write(fence, 4, "order-2", "zombie"))
        .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.highest()).isEqualTo(9));
    assertThat(fence.entries()).containsExactly("2 apples");
    assertThat(fence.records("orders")).isOne();
    assertThat(rejections(fence, mode)).isEqualTo(1.0);
    // the refusal recorded nothing: the same key with a valid token is a first write
    assertThat(write(fence, 10, "order-2", "zombie")).isEqualTo(2);
    assertThat(fence.entries()).containsExactly("2 apples", "zombie");
  }

  @Test
  void aRetryAfterTheTokenWasOvertakenIsAnsweredFromItsRecord() throws Exception {
    FenceUnderTest fence = fence(FencingMode.STRICT);
    write(fence, 5, "order-1", "2 apples"); // applied; say its answer was lost
    write(fence, 8, "order-2", "the next holder's write");
    assertThat(write(fence, 5, "order-1", "2 apples")).isEqualTo(1);
    assertThat(fence.entries()).containsExactly("2 apples", "the next holder's write");
    assertThat(fence.highest("orders")).isEqualTo(8);
  }

  @Test
  void aFailedEffectRecordsNoKeyAndLeavesTheHighestAlone() throws Exception {
    FenceUnderTest fence = fence(FencingMode.STRICT);
    assertThatThrownBy(() -> fence.writeFailing("orders", 3, "order-1", "disk full"))
        .hasMessageContaining("disk full");
    assertThat(fence.highest("orders")).isZero();
    assertThat(fence.records("orders")).isZero();
    assertThat(write(fence, 3, "order-1", "2 apples")).isEqualTo(1);
    assertThat(fence.entries()).containsExactly("2 apples");
  }

  @Test
  void keysExpireAfterTheRetentionOf24HoursByDefault() throws Exception {
    assertThat(IdempotencyKeys.DEFAULT_RETENTION).isEqualTo(Duration.ofHours(24));
    FenceUnderTest fence = fence(FencingMode.MONOTONE);
    write(fence, 5, "order-1", "2 apples");
    write(fence, 5, "order-2", "1 fig");
    clock.add(Duration.ofHours(24).minusMillis(1));
    assertThat(write(fence, 5, "order-1", "2 apples")).isEqualTo(1);
    assertThatThrownBy(() -> write(fence, 5, "order-1", "3 pears")).isInstanceOf(IdempotencyKeyReusedException.class);
    assertThat(fence.purgeExpired()).isZero();
    clock.add(Duration.ofMillis(1));
    // forgotten: the key names a new request now
    assertThat(write(fence, 5, "order-1", "3 pears")).isEqualTo(3);
    assertThat(write(fence, 5, "order-1", "3 pears")).isEqualTo(3);
    assertThat(fence.entries()).containsExactly("2 apples", "1 fig", "3 pears");
    // order-2's expired record is gone after the purge, if the write has not dropped it already
    long before = fence.records("orders");
    assertThat(before - fence.purgeExpired()).isOne();
    assertThat(fence.records("orders")).isOne();
  }

  @Test
  void theRetentionIsConfigurableAndPurgeDropsExpiredKeysOfEveryKey() throws Exception {
    FenceUnderTest fence = fence(FencingMode.MONOTONE, Duration.ofMinutes(10));
    fence.write("a", 1, "k1", "h", "a1");
    fence.write("b", 1, "k1", "h", "b1");
    clock.add(Duration.ofMinutes(5));
    fence.write("b", 1, "k2", "h", "b2");
    assertThat(fence.purgeExpired()).isZero();
    clock.add(Duration.ofMinutes(5));
    assertThat(fence.purgeExpired()).isEqualTo(2);
    assertThat(fence.records("a")).isZero();
    assertThat(fence.records("b")).isOne();
    assertThat(fence.write("a", 1, "k1", "h", "a1")).isEqualTo(4); // forgotten: stored again
    assertThat(fence.entries()).containsExactly("a1", "b1", "b2", "a1");
    for (Duration bad : List.of(Duration.ZERO, Duration.ofSeconds(-1))) {
      assertThatThrownBy(() -> fence(FencingMode.MONOTONE, bad)).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void idempotencyKeysAreScopedToTheResourceKey() throws Exception {
    FenceUnderTest fence = fence(FencingMode.MONOTONE);
    String hash = IdempotencyKeys.sha256("x");
    assertThat(fence.write("a", 1, "k", hash, "x")).isEqualTo(1);
    assertThat(fence.write("b", 1, "k", hash, "x")).isEqualTo(2); // the same request under another key: stored
    assertThat(fence.entries()).containsExactly("x", "x");
  }

  @Test
  void badKeysHashesAndTokensAreInvalidAndRunNothing() throws Exception {
    FenceUnderTest fence = fence(FencingMode.MONOTONE);
    for (ThrowingCallable bad : List.<ThrowingCallable>of(() -> write(fence, 1, "", "x"),
        () -> write(fence, 1, "  ", "x"), () -> write(fence, 1, "k".repeat(256), "x"),
        () -> fence.write("orders", 1, "k", "", "x"), () -> fence.write("orders", 1, "k", "h".repeat(256), "x"),
        () -> write(fence, 0, "k", "x"))) {
      assertThatThrownBy(bad).isInstanceOf(IllegalArgumentException.class);
    }
    assertThat(fence.entries()).isEmpty();
    assertThat(fence.highest("orders")).isZero();
    assertThat(write(fence, 1, "k".repeat(255), "x")).isEqualTo(1);
    assertThat(fence.entries()).containsExactly("x");
  }

  /** Concurrent first writes of one key, each thread with its own writer: one effect, every caller its result. */
  @ParameterizedTest
  @EnumSource(FencingMode.class)
  void concurrentRetriesOfOneKeyRunTheEffectOnce(FencingMode mode) throws Exception {
    FenceUnderTest fence = fence(mode);
    int threads = 6;
    int rounds = 20;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Long> answers = new ArrayList<>();
    try {
      for (int round = 0; round < rounds; round++) {
        String key = "order-" + round;
        long token = 1 + round;
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Long>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          futures.add(pool.submit(() -> {
            go.await();
            try (Writer own = fence.writer()) {
              return write(own, token, key, "entry of " + key);
            }
          }));
        }
        go.countDown();
        long first = futures.get(0).get(60, TimeUnit.SECONDS);
        for (Future<Long> f : futures) {
          assertThat(f.get(60, TimeUnit.SECONDS)).as(key).isEqualTo(first);
        }
        answers.add(first);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(fence.entries()).hasSize(rounds).doesNotHaveDuplicates();
    assertThat(answers).containsExactlyElementsOf(LongStream.rangeClosed(1, rounds).boxed().toList());
    assertThat(fence.records("orders")).isEqualTo(rounds);
  }
}
