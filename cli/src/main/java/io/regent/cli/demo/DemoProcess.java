package io.regent.cli.demo;

import io.regent.cli.cluster.Launcher;
import io.regent.process.ChildProcess;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A {@code regent} child process of the demo, as the narration reads it: its output is echoed with a prefix,
 * and its stdout lines are awaited one after the other (each {@link #await} consumes the lines up to the one
 * it returns). Started and signalled through {@link ChildProcess}.
 */
final class DemoProcess implements AutoCloseable {
  /** How long {@link #close()} gives it after SIGTERM, ms. */
  private static final long CLOSE_GRACE_MS = 3_000;

  private final String label;
  private final ChildProcess process;
  /** Position in the stdout lines of the next line an {@link #await} may return. */
  private int next;

  private DemoProcess(String label, ChildProcess process) {
    this.label = label;
    this.process = process;
  }

  /**
   * Starts {@code regent ARGS...} with the same java and class path as this process; its stdout and stderr
   * lines that {@code echo} accepts are shown on {@code console}.
   */
  static DemoProcess start(String label, PrintWriter console, Predicate<String> echo, List<String> args)
      throws IOException {
    Consumer<String> show = line -> {
      if (echo.test(line)) {
        synchronized (console) {
          console.println("    [" + label + "] " + line);
          console.flush();
        }
      }
    };
    List<String> cmd = new ArrayList<>(Launcher.javaCommand(Launcher.CLIENT_JVM));
    cmd.addAll(args);
    return new DemoProcess(label, ChildProcess.builder("demo-" + label, cmd).captureStdout(show, show)
        .closeGrace(Duration.ofMillis(CLOSE_GRACE_MS)).start());
  }

  /** Waits for the next stdout line matching {@code match}; fails after {@code timeoutMs} or when the process ends. */
  String await(Predicate<String> match, long timeoutMs, String what) throws Exception {
    int at;
    try {
      at = process.awaitLineIndex(next, match, Duration.ofMillis(timeoutMs));
    } catch (IllegalStateException e) {
      Integer code = process.exitCode();
      throw new IllegalStateException(code != null ? label + " exited with code " + code + " before " + what
          : label + ": no " + what + " within " + timeoutMs / 1000 + " s", e);
    }
    next = at + 1;
    return process.lines().get(at);
  }

  /** Forgets the stdout lines not waited for yet: the next {@link #await} sees only lines printed from now on. */
  void discardPending() {
    next = process.lines().size();
  }

  /** Waits for the process to exit, handing each stdout line still unread to {@code each}; the exit code. */
  int awaitExit(long timeoutMs, Consumer<String> each) throws Exception {
    int code = process.awaitExit(Duration.ofMillis(timeoutMs));
    List<String> lines = process.lines();
    lines.subList(Math.min(next, lines.size()), lines.size()).forEach(each);
    next = lines.size();
    return code;
  }

  long pid() {
    return process.pid();
  }

  /** The pids of this process and its descendants (for an elect --exec: the elect JVM, then its command). */
  List<Long> tree() {
    return process.tree();
  }

  /** {@code kill -SIGNAL PID...}, e.g. STOP or CONT; fails when kill does. */
  static void kill(String signal, List<Long> pids) {
    ChildProcess.kill(signal, pids);
  }

  /** SIGTERM, then the exit code (or SIGKILL after {@code graceMs} and -1). */
  int terminate(long graceMs) throws InterruptedException {
    return process.terminate(Duration.ofMillis(graceMs));
  }

  /** Resumes it should it be stopped, terminates it, and kills whatever it started that is left. */
  @Override
  public void close() {
    process.close();
  }
}
