package io.regent.jepsen.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PauseGateTest {
  @Test
  void anOpenGateLetsThroughAndAShutOneHoldsForItsTime() throws Exception {
    PauseGate g = new PauseGate();
    // An open gate that held would hold for ever: a generous bound tells the two apart on a loaded machine.
    assertTimeoutPreemptively(Duration.ofSeconds(10), g::await, "an open gate lets through");
    g.pause(TimeUnit.MILLISECONDS.toNanos(200));
    assertThat(g.paused()).isTrue();
    long t0 = System.nanoTime();
    g.await();
    assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(150));
    assertThat(g.paused()).isFalse();
  }

  @Test
  void openReleasesAThreadBlockedInAwait() throws Exception {
    PauseGate g = new PauseGate();
    g.pause(TimeUnit.MINUTES.toNanos(10));
    Thread waiter = new Thread(() -> {
      try {
        g.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "pause-gate-waiter");
    waiter.start();
    // Open only once the waiter is parked inside await(): opening before it got there would prove nothing.
    await().atMost(Duration.ofSeconds(10)).until(() -> waiter.getState() == Thread.State.TIMED_WAITING);
    assertThat(g.paused()).isTrue();
    g.open();
    waiter.join(TimeUnit.SECONDS.toMillis(10));
    assertThat(waiter.isAlive()).as("still blocked after open()").isFalse();
    assertThat(g.paused()).isFalse();
  }
}
