package io.regent.server.concurrent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A node's two executors: named daemon threads, and a blocking pool whose queue is bounded. */
class NodeExecutorsTest {
  @Test
  void tasksRunOnNamedDaemonThreads() throws Exception {
    try (NodeExecutors e = new NodeExecutors()) {
      Thread timer = e.timers().schedule(Thread::currentThread, 1, TimeUnit.MILLISECONDS).get();
      Thread blocking = CompletableFuture.supplyAsync(Thread::currentThread, e.blocking()).get();
      assertThat(timer.getName()).startsWith("regent-timer-");
      assertThat(blocking.getName()).startsWith("regent-blocking-");
      assertThat(timer.isDaemon()).isTrue();
      assertThat(blocking.isDaemon()).isTrue();
    }
  }

  @Test
  void aFullBlockingPoolRefusesMoreWorkInsteadOfQueueingWithoutBound() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try (NodeExecutors e = new NodeExecutors()) {
      for (int i = 0; i < NodeExecutors.BLOCKING_THREADS + NodeExecutors.BLOCKING_QUEUE; i++) {
        e.blocking().execute(() -> {
          try {
            release.await();
          } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
          }
        });
      }
      assertThatThrownBy(() -> e.blocking().execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
      release.countDown();
    }
  }
}
