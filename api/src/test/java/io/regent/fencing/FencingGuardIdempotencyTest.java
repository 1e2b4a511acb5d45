package io.regent.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.threeten.extra.MutableClock;

/** {@link FencingGuard#write} over {@link InMemoryFenceStore}: Stripe's idempotency keys at the fenced resource. */
class FencingGuardIdempotencyTest {
  private final MeterRegistry registry = new SimpleMeterRegistry();
  private final MutableClock clock = MutableClock.of(Instant.parse("2024-05-01T12:00:00Z"), ZoneOffset.UTC);
  private final InMemoryFenceStore store = new InMemoryFenceStore(IdempotencyKeys.DEFAULT_RETENTION, clock);
  private final List<String> effects = Collections.synchronizedList(new ArrayList<>());

  private FencingGuard guard(FencingMode mode) {
    return new FencingGuard(store, mode, registry);
  }

  /** The guarded write: records {@code entry} and returns its position among every effect so far. */
  private Supplier<Integer> effect(String entry) {
    return () -> {
      effects.add(entry);
      return effects.size();
    };
  }

  private int write(FencingGuard guard, long token, String idempotencyKey, String entry) {
    return guard.write("orders", token, idempotencyKey, IdempotencyKeys.sha256(entry), effect(entry));
  }

  private double rejections(FencingMode mode) {
    return registry.get(FenceMetrics.REJECTED).tag("store", "memory")
        .tag("mode", mode.name().toLowerCase()).counter().count();
  }

  @ParameterizedTest
  @EnumSource(FencingMode.class)
  void aRetryReturnsTheFirstResultAndRunsTheEffectOnce(FencingMode mode) {
    FencingGuard guard = guard(mode);
    assertThat(write(guard, 5, "order-1", "2 apples")).isEqualTo(1);
    // strict mode would refuse token 5 again: the retry is answered from the record before the token check
    assertThat(write(guard, 5, "order-1", "2 apples")).isEqualTo(1);
    assertThat(write(guard, 5, "order-1", "2 apples")).isEqualTo(1);
    assertThat(effects).containsExactly("2 apples");
    assertThat(guard.highest("orders")).isEqualTo(5);
    assertThat(rejections(mode)).isZero();
  }

  @Test
  void anotherRequestUnderTheSameKeyIsRefusedWithItsOwnError() {
    FencingGuard guard = guard(FencingMode.MONOTONE);
    write(guard, 5, "order-1", "2 apples");
    assertThatThrownBy(() -> write(guard, 6, "order-1", "3 pears"))
        .isInstanceOfSatisfying(IdempotencyKeyReusedException.class, e -> {
          assertThat(e.key()).isEqualTo("orders");
          assertThat(e.idempotencyKey()).isEqualTo("order-1");
        })
        .isNotInstanceOf(StaleTokenException.class)
        .hasMessageContaining("'order-1'").hasMessageContaining("another request");
    assertThat(effects).containsExactly("2 apples");
    assertThat(guard.highest("orders")).isEqualTo(5);
    assertThat(write(guard, 5, "order-1", "2 apples")).isEqualTo(1);
    assertThat(rejections(FencingMode.MONOTONE)).isZero();
  }

  @ParameterizedTest
  @EnumSource(FencingMode.class)
  void aStaleTokenIsStillRefusedAndRecordsNoKey(FencingMode mode) {
    FencingGuard guard = guard(mode);
    write(guard, 9, "order-1", "2 apples");
    assertThatThrownBy(() -> write(guard, 4, "order-2", "zombie"))
        .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.highest()).isEqualTo(9));
    assertThat(effects).containsExactly("2 apples");
    assertThat(rejections(mode)).isEqualTo(1.0);
    // the refusal recorded nothing: the same key with a valid token is a first write
    assertThat(write(guard, 10, "order-2", "zombie")).isEqualTo(2);
    assertThat(effects).containsExactly("2 apples", "zombie");
  }

  @Test
  void aRetryAfterTheTokenWasOvertakenIsAnsweredFromItsRecord() {
    FencingGuard guard = guard(FencingMode.STRICT);
    write(guard, 5, "order-1", "2 apples"); // applied; say its answer was lost
    write(guard, 8, "order-2", "the next holder's write");
    assertThat(write(guard, 5, "order-1", "2 apples")).isEqualTo(1);
    assertThat(effects).containsExactly("2 apples", "the next holder's write");
    assertThat(guard.highest("orders")).isEqualTo(8);
  }

  @Test
  void aFailedEffectRecordsNoKeyAndLeavesTheHighestAlone() {
    FencingGuard guard = guard(FencingMode.STRICT);
    assertThatThrownBy(() -> guard.write("orders", 3, "order-1", "h", () -> {
      throw new IllegalStateException("disk full");
    })).hasMessage("disk full");
    assertThat(guard.highest("orders")).isZero();
    assertThat(store.records("orders")).isZero();
    assertThat(write(guard, 3, "order-1", "2 apples")).isEqualTo(1);
  }

  @Test
  void keysExpireAfterTheRetentionOf24HoursByDefault() {
    assertThat(IdempotencyKeys.DEFAULT_RETENTION).isEqualTo(Duration.ofHours(24));
    FencingGuard guard = guard(FencingMode.MONOTONE);
    write(guard, 5, "order-1", "2 apples");
    clock.add(Duration.ofHours(24).minusMillis(1));
    assertThat(write(guard, 5, "order-1", "2 apples")).isEqualTo(1);
    assertThatThrownBy(() -> write(guard, 5, "order-1", "3 pears")).isInstanceOf(IdempotencyKeyReusedException.class);
    clock.add(Duration.ofMillis(1));
    // forgotten: the key names a new request now
    assertThat(write(guard, 5, "order-1", "3 pears")).isEqualTo(2);
    assertThat(write(guard, 5, "order-1", "3 pears")).isEqualTo(2);
    assertThat(effects).containsExactly("2 apples", "3 pears");
    assertThat(store.records("orders")).isOne();
  }

  @Test
  void theRetentionIsConfigurableAndPurgeDropsExpiredKeysOfEveryKey() {
    InMemoryFenceStore shortLived = new InMemoryFenceStore(Duration.ofMinutes(10), clock);
    FencingGuard guard = new FencingGuard(shortLived, FencingMode.MONOTONE, registry);
    guard.write("a", 1, "k1", "h", () -> 1);
    guard.write("b", 1, "k1", "h", () -> 1);
    clock.add(Duration.ofMinutes(5));
    guard.write("b", 1, "k2", "h", () -> 2);
    assertThat(shortLived.purgeExpired()).isZero();
    clock.add(Duration.ofMinutes(5));
    assertThat(shortLived.purgeExpired()).isEqualTo(2);
    assertThat(shortLived.records("a")).isZero();
    assertThat(shortLived.records("b")).isOne();
    assertThatThrownBy(() -> new InMemoryFenceStore(Duration.ZERO, clock)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void idempotencyKeysAreScopedToTheResourceKey() {
    FencingGuard guard = guard(FencingMode.MONOTONE);
    assertThat(guard.write("a", 1, "k", "h1", () -> "a")).isEqualTo("a");
    assertThat(guard.write("b", 1, "k", "h2", () -> "b")).isEqualTo("b");
  }

  @Test
  void badKeysHashesAndTokensAreInvalidAndRunNothing() {
    FencingGuard guard = guard(FencingMode.MONOTONE);
    for (Runnable bad : List.<Runnable>of(() -> write(guard, 1, "", "x"), () -> write(guard, 1, "  ", "x"),
        () -> write(guard, 1, "k".repeat(256), "x"), () -> guard.write("orders", 1, "k", "", effect("x")),
        () -> write(guard, 0, "k", "x"))) {
      assertThatThrownBy(bad::run).isInstanceOf(IllegalArgumentException.class);
    }
    assertThat(write(guard, 1, "k".repeat(255), "x")).isEqualTo(1);
    assertThat(effects).containsExactly("x");
  }

  @Test
  void aStoreWithoutRecordsRefusesIdempotentWrites() {
    FenceStore bare = new FenceStore() {
      @Override
      public <T> T admit(String key, long token, FencingMode mode, Supplier<T> write) {
        return write.get();
      }

      @Override
      public long highest(String key) {
        return 0;
      }

      @Override
      public String name() {
        return "bare";
      }
    };
    FencingGuard guard = new FencingGuard(bare, FencingMode.STRICT, registry);
    assertThatThrownBy(() -> write(guard, 1, "k", "x")).isInstanceOf(UnsupportedOperationException.class);
    assertThat(effects).isEmpty();
  }

  @Test
  void concurrentRetriesOfOneKeyRunTheEffectOnce() throws Exception {
    FencingGuard guard = guard(FencingMode.STRICT);
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Integer>> answers = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        answers.add(pool.submit(() -> {
          start.await();
          return guard.write("orders", 7, "order-1", "h", runs::incrementAndGet);
        }));
      }
      start.countDown();
      for (Future<Integer> a : answers) {
        assertThat(a.get(30, TimeUnit.SECONDS)).isEqualTo(1);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(runs).hasValue(1);
  }
}
