package io.regent.server.limits;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The bucket's rule on a clock the test moves: a full bucket's burst, its refill, and no take lost to a race. */
class TokenBucketTest {
  private final AtomicLong clock = new AtomicLong(5_000_000_000L);

  @Test
  void aFullBucketAllowsItsBurstThenOneTakePerRefillInterval() {
    TokenBucket b = new TokenBucket(10, 3, clock::get); // one token per 100 ms
    assertThat(IntStream.range(0, 4).mapToObj(i -> b.tryTake())).containsExactly(true, true, true, false);
    clock.addAndGet(99_000_000);
    assertThat(b.tryTake()).as("99 ms: not yet a token").isFalse();
    clock.addAndGet(1_000_000);
    assertThat(b.tryTake()).as("100 ms: one").isTrue();
    assertThat(b.tryTake()).isFalse();
    clock.addAndGet(10_000_000_000L);
    assertThat(IntStream.range(0, 4).mapToObj(i -> b.tryTake())).as("10 s idle refills to the burst, not past it")
        .containsExactly(true, true, true, false);
  }

  @Test
  void aRateBelowOnePerSecondAndExtremeSettingsDoNotOverflow() {
    TokenBucket slow = new TokenBucket(0.5, 1, clock::get);
    assertThat(slow.tryTake()).isTrue();
    clock.addAndGet(1_999_000_000L);
    assertThat(slow.tryTake()).isFalse();
    clock.addAndGet(1_000_000L);
    assertThat(slow.tryTake()).isTrue();
    TokenBucket huge = new TokenBucket(1e-12, Integer.MAX_VALUE, clock::get);
    assertThat(huge.tryTake()).isTrue();
  }

  @Test
  void concurrentTakersGetExactlyTheBurstBetweenThem() throws Exception {
    TokenBucket b = new TokenBucket(1e-3, 10_000, clock::get); // no refill within the test
    AtomicLong taken = new AtomicLong();
    Thread[] takers = new Thread[4];
    for (int t = 0; t < takers.length; t++) {
      takers[t] = new Thread(() -> {
        for (int i = 0; i < 5_000; i++) {
          if (b.tryTake()) {
            taken.incrementAndGet();
          }
        }
      });
      takers[t].start();
    }
    for (Thread t : takers) {
      t.join();
    }
    assertThat(taken).hasValue(10_000);
  }
}
