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
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** A {@code regent} child process of the demo: its output is echoed with a prefix and can be waited for. */
final class DemoProcess implements AutoCloseable {
  private final String label;
  private final Process process;
  private final BlockingQueue<String> stdout = new LinkedBlockingQueue<>();

  private DemoProcess(String label, Process process, PrintWriter console) {
    this.label = label;
    this.process = process;
    pump(process.getInputStream(), console, stdout);
    pump(process.getErrorStream(), console, null);
  }

  /** Starts {@code regent ARGS...} with the same java and class path as this process. */
  static DemoProcess start(String label, PrintWriter console, String... args) throws IOException {
    List<String> cmd = new ArrayList<>(Launcher.javaCommand(Launcher.CLIENT_JVM));
    cmd.addAll(List.of(args));
    return new DemoProcess(label, new ProcessBuilder(cmd).start(), console);
  }

  private void pump(InputStream in, PrintWriter console, BlockingQueue<String> sink) {
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          synchronized (console) {
            console.println("    [" + label + "] " + line);
            console.flush();
          }
          if (sink != null) {
            sink.add(line);
          }
        }
      } catch (IOException e) {
        // the process ended
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

  boolean isAlive() {
    return process.isAlive();
  }

  long pid() {
    return process.pid();
  }

  /** kill -9: the process gets no chance to clean up. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  /** SIGTERM, then the exit code (or SIGKILL after {@code graceMs} and -1). */
  int terminate(long graceMs) throws InterruptedException {
    process.destroy();
    if (process.waitFor(graceMs, TimeUnit.MILLISECONDS)) {
      return process.exitValue();
    }
    kill();
    return -1;
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      try {
        terminate(3_000);
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }
}
