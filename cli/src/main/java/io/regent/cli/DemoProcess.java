package io.regent.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * A {@code regent} child process of the demo: its output is echoed with a prefix and its stdout lines can be
 * waited for; it and the processes it starts (an {@code elect --exec} command) can be signalled.
 */
final class DemoProcess implements AutoCloseable {
  private final String label;
  private final Process process;
  private final BlockingQueue<String> stdout = new LinkedBlockingQueue<>();
  private final CountDownLatch stdoutClosed = new CountDownLatch(1);

  private DemoProcess(String label, Process process, PrintWriter console, Predicate<String> echo) {
    this.label = label;
    this.process = process;
    pump(process.getInputStream(), console, echo, stdout);
    pump(process.getErrorStream(), console, echo, null);
  }

  /**
   * Starts {@code regent ARGS...} with the same java and class path as this process; its stdout and stderr
   * lines that {@code echo} accepts are shown on {@code console}.
   */
  static DemoProcess start(String label, PrintWriter console, Predicate<String> echo, List<String> args)
      throws IOException {
    List<String> cmd = new ArrayList<>(Launcher.javaCommand(Launcher.CLIENT_JVM));
    cmd.addAll(args);
    return new DemoProcess(label, new ProcessBuilder(cmd).start(), console, echo);
  }

  private void pump(InputStream in, PrintWriter console, Predicate<String> echo, BlockingQueue<String> sink) {
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          if (echo.test(line)) {
            synchronized (console) {
              console.println("    [" + label + "] " + line);
              console.flush();
            }
          }
          if (sink != null) {
            sink.add(line);
          }
        }
      } catch (IOException e) {
        // the process ended
      } finally {
        if (sink != null) {
          stdoutClosed.countDown();
        }
      }
    }, "demo-" + label);
    t.setDaemon(true);
    t.start();
  }

  /** Waits for the next stdout line matching {@code match}; fails after {@code timeoutMs} or when the process ends. */
  String await(Predicate<String> match, long timeoutMs, String what) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (System.nanoTime() < deadline) {
      String line = stdout.poll(100, TimeUnit.MILLISECONDS);
      if (line != null && match.test(line)) {
        return line;
      }
      if (line == null && !process.isAlive() && stdout.isEmpty()) {
        throw new IllegalStateException(label + " exited with code " + process.exitValue() + " before " + what);
      }
    }
    throw new IllegalStateException(label + ": no " + what + " within " + timeoutMs / 1000 + " s");
  }

  /** Forgets the stdout lines not waited for yet: the next {@link #await} sees only lines printed from now on. */
  void discardPending() {
    stdout.clear();
  }

  /** Waits for the process to exit, handing each stdout line still unread to {@code each}; the exit code. */
  int awaitExit(long timeoutMs, Consumer<String> each) throws Exception {
    if (!process.waitFor(timeoutMs, TimeUnit.MILLISECONDS) || !stdoutClosed.await(timeoutMs, TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException(label + " still running after " + timeoutMs / 1000 + " s");
    }
    for (String line; (line = stdout.poll()) != null; ) {
      each.accept(line);
    }
    return process.exitValue();
  }

  long pid() {
    return process.pid();
  }

  /** The pids of this process and its descendants (for an elect --exec: the elect JVM, then its command). */
  List<Long> tree() {
    return Stream.concat(Stream.of(process.toHandle()), process.descendants()).map(ProcessHandle::pid).toList();
  }

  /** {@code kill -SIGNAL PID...}, e.g. STOP or CONT; fails when kill does. */
  static void kill(String signal, List<Long> pids) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("kill", "-" + signal));
    pids.forEach(p -> cmd.add(String.valueOf(p)));
    Process k = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    if (!k.waitFor(10, TimeUnit.SECONDS) || k.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", cmd) + " failed: "
          + new String(k.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip());
    }
  }

  /** kill -9: the process gets no chance to clean up. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  /** SIGTERM, then the exit code (or SIGKILL after {@code graceMs} and -1). */
  int terminate(long graceMs) throws InterruptedException {
    process.toHandle().destroy(); // unlike Process.destroy(), leaves its output readable to the end
    if (process.waitFor(graceMs, TimeUnit.MILLISECONDS)) {
      return process.exitValue();
    }
    kill();
    return -1;
  }

  /** Resumes it should it be stopped, terminates it, and kills whatever it started that is left. */
  @Override
  public void close() {
    List<ProcessHandle> started = process.descendants().toList();
    try {
      if (process.isAlive()) {
        kill("CONT", tree());
        terminate(3_000);
      }
    } catch (Exception e) {
      process.destroyForcibly();
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
    }
    started.forEach(ProcessHandle::destroyForcibly);
  }
}
