package io.regent.fencing;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs many threads that all start at once and write with overlapping tokens to a few keys, so that
 * admissions race with refusals. Tokens drift upward with jitter, as a stream of grants seen late would.
 */
final class Race {
  /** One attempt: returns normally when admitted, throws {@link StaleTokenException} when refused. */
  interface Attempt {
    void run(String key, long token) throws Exception;
  }

  final AtomicLong admitted = new AtomicLong();
  final AtomicLong refused = new AtomicLong();

  /** Runs {@code threads} × {@code perThread} attempts over {@code keys} and waits for all of them. */
  void run(int threads, int perThread, List<String> keys, Attempt attempt) throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        SplittableRandom random = new SplittableRandom(t);
        done.add(pool.submit(() -> {
          start.await();
          for (int i = 0; i < perThread; i++) {
            long token = 1 + i + random.nextInt(8);
            try {
              attempt.run(keys.get(random.nextInt(keys.size())), token);
              admitted.incrementAndGet();
            } catch (StaleTokenException e) {
              refused.incrementAndGet();
            }
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
