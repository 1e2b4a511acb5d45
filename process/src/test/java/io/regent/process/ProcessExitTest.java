package io.regent.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** When a process this JVM did not start has ended: gone, or a zombie nobody has reaped yet. */
class ProcessExitTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  /**
   * A zombie kept for as long as its parent lives: the shell forks {@code true} and then becomes {@code sleep}, which
   * never reaps it. The JDK calls it alive, so {@code onExit()} of it does not complete while the parent lives.
   */
  @Test
  void aZombieHasEndedAlthoughTheJdkCallsItAlive() throws Exception {
    Process parent = new ProcessBuilder(List.of("sh", "-c", "true & exec sleep 1000")).start();
    try {
      ProcessHandle zombie = await().atMost(WAIT).until(() -> parent.toHandle().children().findFirst(),
          Optional::isPresent).orElseThrow();
      await().atMost(WAIT).until(() -> ProcessExit.ended(zombie));

      assertThat(zombie.isAlive()).as("the JDK's view of a zombie").isTrue();
      assertThat(zombie.onExit().completeOnTimeout(null, 1, TimeUnit.SECONDS).get()).as("onExit").isNull();
      assertThat(ProcessExit.await(zombie, System.nanoTime())).isTrue();
    } finally {
      parent.destroyForcibly().waitFor();
    }
  }

  @Test
  void aLiveProcessHasNotEndedAndTheWaitEndsAtTheDeadline() throws Exception {
    Process sleeper = new ProcessBuilder(List.of("sleep", "1000")).start();
    try {
      assertThat(ProcessExit.ended(sleeper.toHandle())).isFalse();
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);

      assertThat(ProcessExit.await(sleeper.toHandle(), deadline)).isFalse();
      assertThat(System.nanoTime()).isGreaterThanOrEqualTo(deadline);
    } finally {
      sleeper.destroyForcibly().waitFor();
    }
  }

  @Test
  void aReapedProcessHasEnded() throws Exception {
    Process p = new ProcessBuilder(List.of("true")).start();
    p.waitFor();

    assertThat(ProcessExit.ended(p.toHandle())).isTrue();
  }
}
