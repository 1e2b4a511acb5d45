package io.regent.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Starting, awaiting and signalling child processes (a shell stands in for a regent JVM). */
class ChildProcessTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir
  Path dir;

  private static ChildProcess.Builder sh(String script) {
    return ChildProcess.builder("sh", List.of("/bin/sh", "-c", script));
  }

  @Test
  void capturedLinesAreAwaitedInOrderAndTheExitCodeFollows() throws Exception {
    List<String> echoed = new CopyOnWriteArrayList<>();
    try (ChildProcess p = sh("echo one; echo two; echo one; exit 3").captureOutput(echoed::add).start()) {
      int first = p.awaitLineIndex(0, "one"::equals, WAIT);
      assertThat(p.awaitLineIndex(first + 1, "one"::equals, WAIT)).isEqualTo(2);
      assertThat(p.awaitExit(WAIT)).isEqualTo(3);
      assertThat(p.lines()).containsExactly("one", "two", "one");
      assertThat(echoed).containsExactly("one", "two", "one");
      assertThat(p.exitCode()).isEqualTo(3);
    }
  }

  @Test
  void awaitingALineThatNeverComesFailsOnceTheProcessHasEnded() throws Exception {
    try (ChildProcess p = sh("echo other").captureOutput(l -> { }).start()) {
      assertThatThrownBy(() -> p.awaitLine("ready"::equals, WAIT)).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("exited with code 0");
    }
  }

  @Test
  void stderrCanBeKeptApartFromTheAwaitedStdout() throws Exception {
    List<String> errors = new CopyOnWriteArrayList<>();
    try (ChildProcess p = sh("echo out; echo err >&2").captureStdout(l -> { }, errors::add).start()) {
      p.awaitExit(WAIT);
      assertThat(p.lines()).containsExactly("out");
      assertThat(errors).containsExactly("err");
    }
  }

  @Test
  void outputAppendsToALogFileAcrossStarts() throws Exception {
    Path log = dir.resolve("n1.log");
    for (String word : List.of("first", "second")) {
      try (ChildProcess p = sh("echo " + word).appendOutputTo(log).start()) {
        p.awaitExit(WAIT);
      }
    }
    assertThat(Files.readAllLines(log)).containsExactly("first", "second");
  }

  @Test
  void aStoppedProcessResumesAndSigtermEndsIt() throws Exception {
    try (ChildProcess p = sh("trap 'echo bye; exit 0' TERM; echo up; while :; do sleep 0.05; done")
        .captureOutput(l -> { }).newSession().start()) {
      p.awaitLine("up"::equals, WAIT);
      p.signalGroup("STOP");
      p.signalGroup("CONT");
      assertThat(p.terminate(WAIT)).isZero();
      assertThat(p.alive()).isFalse();
    }
  }

  @Test
  void closeKillsTheProcessAndWhatItStarted() throws Exception {
    ChildProcess p = sh("sleep 600 & echo started; wait").captureOutput(l -> { }).start();
    p.awaitLine("started"::equals, WAIT);
    List<ProcessHandle> children = p.handle().descendants().toList();
    assertThat(children).isNotEmpty();
    p.close();
    assertThat(p.alive()).isFalse();
    for (ProcessHandle c : children) {
      c.onExit().get();
      assertThat(c.isAlive()).isFalse();
    }
  }
}
