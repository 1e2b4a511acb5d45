package io.regent.jepsen.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PauseGateTest {
  @Test
  void blocksUntilItsTimeIsUpOrItIsOpened() throws Exception {
    PauseGate g = new PauseGate();
    long t0 = System.nanoTime();
    g.await();
    assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.MILLISECONDS.toNanos(50));
    g.pause(TimeUnit.MILLISECONDS.toNanos(200));
    assertThat(g.paused()).isTrue();
    t0 = System.nanoTime();
    g.await();
    assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(150));
    assertThat(g.paused()).isFalse();
    g.pause(TimeUnit.SECONDS.toNanos(30));
    Thread opener = new Thread(() -> {
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        return;
      }
      g.open();
    });
    opener.start();
    t0 = System.nanoTime();
    g.await();
    assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(5));
    opener.join();
  }
}
