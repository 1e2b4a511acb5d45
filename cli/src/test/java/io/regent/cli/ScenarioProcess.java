package io.regent.cli;

import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A {@code regent} process of a scenario test, in its own process group (via setsid, so that it and the
 * command it runs can be paused together), with stdout and stderr collected line by line.
 */
final class ScenarioProcess implements AutoCloseable {
  private final String label;
  private final Process process;
  private final List<String> lines = new CopyOnWriteArrayList<>();

  private ScenarioProcess(String label, Process process) {
    this.label = label;
    this.process = process;
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
          StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          lines.add(line);
          System.out.println("[" + label + "] " + line);
        }
      } catch (IOException e) {
        // the process ended
      }
    }, "scenario-" + label);
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts {@code regent ARGS...} (this JVM's java and class path) as the leader of a new process group. */
  static ScenarioProcess start(String label, List<String> args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of("/usr/bin/setsid"));
    cmd.addAll(regent());
    cmd.addAll(args);
    return new ScenarioProcess(label, new ProcessBuilder(cmd).redirectErrorStream(true).start());
  }

  /** The command line of a {@code regent} client process. */
  static List<String> regent() {
    return Launcher.javaCommand(Launcher.CLIENT_JVM);
  }

  /** Every line printed so far (stdout and stderr, in the order read). */
  List<String> lines() {
    return List.copyOf(lines);
  }

  /** Waits for a line matching {@code match}; returns the first one. */
  String awaitLine(Predicate<String> match, Duration atMost) {
    return await(label + ": a matching line").atMost(atMost).pollInterval(Duration.ofMillis(20))
        .until(() -> lines.stream().filter(match).findFirst().orElse(null), l -> l != null);
  }

  /** Sends {@code signal} (e.g. STOP, CONT) to the whole process group: this process and what it started. */
  void signalGroup(String signal) throws Exception {
    kill(signal, "-" + process.pid());
  }

  /** Sends {@code signal} to this process's descendants only (e.g. the command that elect --exec runs). */
  void signalDescendants(String signal) throws Exception {
    for (ProcessHandle h : process.descendants().toList()) {
      kill(signal, String.valueOf(h.pid()));
    }
  }

  private static void kill(String signal, String target) throws Exception {
    Process k = new ProcessBuilder("kill", "-" + signal, "--", target).redirectErrorStream(true).start();
    if (!k.waitFor(10, TimeUnit.SECONDS) || k.exitValue() != 0) {
      throw new IllegalStateException("kill -" + signal + " -- " + target + " failed: "
          + new String(k.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip());
    }
  }

  /** Waits for the process to exit; its exit code. */
  int awaitExit(Duration atMost) throws InterruptedException {
    if (!process.waitFor(atMost.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError(label + " still running after " + atMost.toSeconds() + " s");
    }
    return process.exitValue();
  }

  /** SIGTERM to this process only; waits for it to exit; its exit code. */
  int terminate(Duration atMost) throws InterruptedException {
    process.toHandle().destroy(); // unlike Process.destroy(), leaves its output readable to the end
    return awaitExit(atMost);
  }

  /** Resumes and kills the whole process group (and this process, should the group be gone). */
  @Override
  public void close() {
    try {
      signalGroup("CONT");
      signalGroup("KILL");
    } catch (Exception e) {
      // the whole group has exited already
    }
    process.destroyForcibly();
  }
}
