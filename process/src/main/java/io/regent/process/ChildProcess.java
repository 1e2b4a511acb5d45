package io.regent.process;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * A process that a Regent tool or test starts and drives by its pid: a local cluster's node, a demo or
 * scenario client, a node under a Jepsen nemesis. The one place that starts such processes, pumps their
 * output, signals them ({@code kill -STOP/-CONT/-9}, SIGTERM) and cleans up after them.
 *
 * <p>Output goes either to a log file (appended, the process may outlive this JVM) or into this object
 * line by line, where it can be awaited; awaiting is woken by each new line, never by polling.
 *
 * <p>Thread-safe.
 */
public final class ChildProcess implements AutoCloseable {
  private static final Path SETSID = Path.of("/usr/bin/setsid");

  private final String label;
  private final Process process;
  private final boolean ownGroup;
  private final Duration closeGrace;
  private final List<String> lines = new ArrayList<>();
  private final CountDownLatch pumps;

  private ChildProcess(Builder b, Process process) {
    this.label = b.label;
    this.process = process;
    this.ownGroup = b.newSession;
    this.closeGrace = b.closeGrace;
    boolean separateStderr = b.stderr != null;
    this.pumps = new CountDownLatch(b.capture == null ? 0 : separateStderr ? 2 : 1);
    if (b.capture != null) {
      pump(process.getInputStream(), line -> {
        b.capture.accept(line);
        synchronized (this) {
          lines.add(line);
          notifyAll();
        }
      }, "output-" + label);
      if (separateStderr) {
        pump(process.getErrorStream(), b.stderr, "stderr-" + label);
      }
    }
  }

  /**
   * {@code java OPTIONS -cp CLASSPATH MAIN}: the java binary, class path and module flags of this JVM, so a
   * child runs exactly the code this process runs; append the main class's arguments. It passes the two
   * {@code --add-opens} flags lmdbjava's {@code ByteBuffer} proxy needs on Java 17 (docs/architecture.md §11).
   */
  public static List<String> javaCommand(List<String> jvmOptions, String mainClass) {
    String java = ProcessHandle.current().info().command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> classPath = new ArrayList<>();
    for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!e.isEmpty()) {
        classPath.add(Path.of(e).toAbsolutePath().normalize().toString());
      }
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    cmd.addAll(jvmOptions);
    cmd.addAll(List.of("--add-opens", "java.base/java.nio=ALL-UNNAMED", "--add-opens",
        "java.base/sun.nio.ch=ALL-UNNAMED", "-cp", String.join(File.pathSeparator, classPath), mainClass));
    return cmd;
  }

  /** A process to run {@code command}; {@code label} names it in thread names and messages. */
  public static Builder builder(String label, List<String> command) {
    return new Builder(label, command);
  }

  /** {@code kill -SIGNAL PID...} (e.g. STOP, CONT); fails when kill does. */
  public static void kill(String signal, List<Long> pids) {
    List<String> targets = new ArrayList<>();
    pids.forEach(p -> targets.add(String.valueOf(p)));
    killTargets(signal, targets);
  }

  /** The process id. */
  public long pid() {
    return process.pid();
  }

  /** The process's handle (for a registry of processes to kill at exit). */
  public ProcessHandle handle() {
    return process.toHandle();
  }

  /** True while the process runs (stopped or not). */
  public boolean alive() {
    return process.isAlive();
  }

  /** The exit code once the process has ended, else null. */
  public Integer exitCode() {
    return process.isAlive() ? null : process.exitValue();
  }

  /** The pids of this process and its descendants (for {@code elect --exec}: the elect JVM, then its command). */
  public List<Long> tree() {
    return Stream.concat(Stream.of(process.toHandle()), process.descendants()).map(ProcessHandle::pid).toList();
  }

  /** Every captured line so far, in the order read (none when the output goes to a file). */
  public synchronized List<String> lines() {
    return List.copyOf(lines);
  }

  /** Waits for a captured line matching {@code match}; the first such line ever printed. */
  public String awaitLine(Predicate<String> match, Duration atMost) throws InterruptedException {
    int at = awaitLineIndex(0, match, atMost);
    return lines().get(at);
  }

  /**
   * Waits for a captured line at position {@code from} or later that matches {@code match}.
   *
   * @return its position in {@link #lines()}
   * @throws IllegalStateException when none came within {@code atMost}, or the process ended without one
   */
  public synchronized int awaitLineIndex(int from, Predicate<String> match, Duration atMost)
      throws InterruptedException {
    long deadline = System.nanoTime() + atMost.toNanos();
    for (int i = from; ; ) {
      for (; i < lines.size(); i++) {
        if (match.test(lines.get(i))) {
          return i;
        }
      }
      if (pumps.getCount() == 0 && !process.isAlive()) {
        throw new IllegalStateException(label + " exited with code " + process.exitValue()
            + " without printing the line awaited");
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new IllegalStateException(label + ": no line awaited within " + atMost.toSeconds() + " s");
      }
      // woken by each new line, and at least every 100 ms to notice an exit without output
      TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
    }
  }

  /**
   * Waits for the process to exit and its captured output to be read to the end.
   *
   * @return the exit code
   * @throws IllegalStateException when it still runs after {@code atMost}
   */
  public int awaitExit(Duration atMost) throws InterruptedException {
    long deadline = System.nanoTime() + atMost.toNanos();
    if (!process.waitFor(atMost.toNanos(), TimeUnit.NANOSECONDS)
        || !pumps.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
      throw new IllegalStateException(label + " still running after " + atMost.toSeconds() + " s");
    }
    return process.exitValue();
  }

  /** {@code kill -SIGNAL} to this process only. */
  public void signal(String signal) {
    killTargets(signal, List.of(String.valueOf(process.pid())));
  }

  /** {@code kill -SIGNAL} to the whole process group: this process and what it started (needs {@code newSession}). */
  public void signalGroup(String signal) {
    if (!ownGroup) {
      throw new IllegalStateException(label + " was not started in a session of its own");
    }
    killTargets(signal, List.of("-" + process.pid()));
  }

  /** {@code kill -SIGNAL} to this process's descendants only (e.g. the command that elect --exec runs). */
  public void signalDescendants(String signal) {
    List<Long> pids = process.descendants().map(ProcessHandle::pid).toList();
    if (!pids.isEmpty()) {
      kill(signal, pids);
    }
  }

  /** SIGKILL: no shutdown hook, no sync, no clean close; then waits for it to be gone. */
  public void kill9() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException(label + " (pid " + process.pid() + ") survived SIGKILL");
    }
  }

  /**
   * SIGTERM, then waits {@code grace} for the exit.
   *
   * @return the exit code, or -1 when it had to be killed after {@code grace}
   */
  public int terminate(Duration grace) throws InterruptedException {
    process.toHandle().destroy(); // unlike Process.destroy(), leaves its output readable to the end
    if (process.waitFor(grace.toNanos(), TimeUnit.NANOSECONDS)) {
      return process.exitValue();
    }
    kill9();
    return -1;
  }

  /**
   * Resumes it and what it started should they be stopped, ends it (SIGTERM and the builder's close grace,
   * else SIGKILL), and kills whatever it started that is left.
   */
  @Override
  public void close() {
    List<ProcessHandle> started = process.descendants().toList();
    try {
      if (process.isAlive()) {
        kill("CONT", tree());
        if (closeGrace.isZero()) {
          kill9();
        } else {
          terminate(closeGrace);
        }
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      process.destroyForcibly(); // it exited meanwhile, or kill failed: make sure
    }
    started.forEach(ProcessHandle::destroyForcibly);
    if (ownGroup) {
      try {
        killTargets("KILL", List.of("-" + process.pid()));
      } catch (RuntimeException e) {
        // the whole group has exited already
      }
    }
  }

  @Override
  public String toString() {
    return label + " (pid " + process.pid() + ")";
  }

  /** Reads {@code in} line by line on a daemon thread until the process closes it. */
  private void pump(InputStream in, Consumer<String> each, String threadName) {
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          each.accept(line);
        }
      } catch (IOException e) {
        // the process ended
      } finally {
        pumps.countDown();
        synchronized (this) {
          notifyAll(); // an awaiting caller sees the end of the output at once
        }
      }
    }, threadName);
    t.setDaemon(true);
    t.start();
  }

  private static void killTargets(String signal, List<String> targets) {
    List<String> cmd = new ArrayList<>(List.of("kill", "-" + signal, "--"));
    cmd.addAll(targets);
    try {
      Process k = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      if (!k.waitFor(10, TimeUnit.SECONDS) || k.exitValue() != 0) {
        throw new IllegalStateException(String.join(" ", cmd) + " failed: "
            + new String(k.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip());
      }
    } catch (IOException e) {
      throw new IllegalStateException(String.join(" ", cmd) + " failed: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(String.join(" ", cmd) + " interrupted", e);
    }
  }

  /** How to start a {@link ChildProcess}. */
  public static final class Builder {
    private final String label;
    private final List<String> command;
    private boolean newSession;
    private Path directory;
    private Collection<String> removedVariables = List.of();
    private Path log;
    private Consumer<String> capture;
    private Consumer<String> stderr;
    private boolean stdinOpen;
    private Duration closeGrace = Duration.ZERO;

    private Builder(String label, List<String> command) {
      this.label = label;
      this.command = List.copyOf(command);
    }

    /**
     * Runs it in a session (and process group) of its own, through {@code setsid} where installed: a Ctrl-C
     * in the terminal does not reach it, and {@link #signalGroup} reaches it and everything it starts.
     */
    public Builder newSession() {
      this.newSession = Files.isExecutable(SETSID);
      return this;
    }

    /** Its working directory (default: this process's). */
    public Builder directory(Path dir) {
      this.directory = dir;
      return this;
    }

    /** Environment variables it must not inherit (e.g. settings meant for another process). */
    public Builder removeVariables(Collection<String> names) {
      this.removedVariables = List.copyOf(names);
      return this;
    }

    /** Appends its standard output and error to {@code file} (created when absent); nothing is captured. */
    public Builder appendOutputTo(Path file) {
      this.log = file;
      this.capture = null;
      return this;
    }

    /**
     * Captures its standard output and error, merged, line by line into {@link #lines()}, handing each line
     * to {@code each} as it is read (e.g. to echo it).
     */
    public Builder captureOutput(Consumer<String> each) {
      this.capture = each;
      this.log = null;
      return this;
    }

    /** Captures standard output only, as {@link #captureOutput}; each line of standard error goes to {@code each}. */
    public Builder captureStdout(Consumer<String> stdoutLine, Consumer<String> stderrLine) {
      captureOutput(stdoutLine);
      this.stderr = stderrLine;
      return this;
    }

    /** Leaves its standard input open (a pipe from this process) instead of reading {@code /dev/null}. */
    public Builder keepStdinOpen() {
      this.stdinOpen = true;
      return this;
    }

    /** How long {@link ChildProcess#close()} gives it after SIGTERM before SIGKILL (default: none, SIGKILL). */
    public Builder closeGrace(Duration grace) {
      this.closeGrace = grace;
      return this;
    }

    /** Starts it. */
    public ChildProcess start() throws IOException {
      List<String> cmd = new ArrayList<>();
      if (newSession) {
        cmd.add(SETSID.toString());
      }
      cmd.addAll(command);
      ProcessBuilder pb = new ProcessBuilder(cmd);
      if (directory != null) {
        pb.directory(directory.toFile());
      }
      pb.environment().keySet().removeAll(removedVariables);
      if (!stdinOpen) {
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
      }
      if (log != null) {
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).redirectErrorStream(true);
      } else if (capture == null) {
        pb.redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectErrorStream(true);
      } else if (stderr == null) {
        pb.redirectErrorStream(true);
      }
      return new ChildProcess(this, pb.start());
    }
  }
}
