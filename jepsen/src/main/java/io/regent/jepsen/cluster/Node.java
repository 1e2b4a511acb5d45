package io.regent.jepsen.cluster;

import io.regent.process.ChildProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;

/**
 * One {@code regent server} process under test, driven by PID: start, {@code kill -9}, {@code
 * SIGSTOP}/{@code SIGCONT}, restart on the same data directory. Its standard output and error are
 * appended to its log file across restarts, each start marked by a {@code === jepsen:} line.
 *
 * <p>In namespace mode the command is {@code ip netns exec <ns> java ...}; {@code ip netns exec} execs
 * the JVM in place, so the PID we hold is the server's own.
 */
public final class Node {
  private final String id;
  private final String host;
  private final int apiPort;
  private final Path log;
  private final List<String> command;
  private ChildProcess process;
  private boolean paused;
  private int starts;

  /**
   * A node (not started).
   *
   * @param id the Raft peer id, e.g. {@code n1}
   * @param host the address its API listens on
   * @param apiPort its API port
   * @param log the log file (appended)
   * @param command the full command line that starts it
   */
  public Node(String id, String host, int apiPort, Path log, List<String> command) {
    this.id = id;
    this.host = host;
    this.apiPort = apiPort;
    this.log = log;
    this.command = List.copyOf(command);
  }

  /** The node id. */
  public String id() {
    return id;
  }

  /** The API endpoint {@code host:port}. */
  public String endpoint() {
    return host + ":" + apiPort;
  }

  /** The log file. */
  public Path log() {
    return log;
  }

  /** The command line. */
  public List<String> command() {
    return command;
  }

  /** Starts the process; a no-op if it is running. */
  public synchronized void start() throws IOException {
    if (alive()) {
      return;
    }
    starts++;
    Files.writeString(log, "=== jepsen: start #" + starts + " of " + id + " at " + Instant.now() + ": "
        + String.join(" ", command) + System.lineSeparator(), StandardCharsets.UTF_8,
        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    process = ChildProcess.builder(id, command).appendOutputTo(log).start();
    paused = false;
    Processes.register(process.handle());
  }

  /** {@code kill -9} and wait for the process to go; a no-op if it is not running. */
  public synchronized void kill() {
    if (process == null) {
      return;
    }
    try {
      process.kill9();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Processes.unregister(process.handle());
    paused = false;
  }

  /** {@code SIGSTOP}; a no-op if not running or already paused. */
  public synchronized void pause() {
    if (alive() && !paused) {
      process.signal("STOP");
      paused = true;
    }
  }

  /** {@code SIGCONT}; a no-op unless paused. */
  public synchronized void resume() {
    if (alive() && paused) {
      process.signal("CONT");
    }
    paused = false;
  }

  /** Resumes it if paused, starts it if dead. */
  public synchronized void heal() throws IOException {
    resume();
    if (!alive()) {
      start();
    }
  }

  /** True while the process runs (paused or not). */
  public synchronized boolean alive() {
    return process != null && process.alive();
  }

  /** True while stopped by {@link #pause()}. */
  public synchronized boolean paused() {
    return paused && alive();
  }

  /** The PID, or -1 if never started. */
  public synchronized long pid() {
    return process == null ? -1 : process.pid();
  }

  /** The exit code if the process died on its own since its last start, else null. */
  public synchronized Integer exitCode() {
    return process == null ? null : process.exitCode();
  }

  @Override
  public String toString() {
    return id + "@" + endpoint();
  }
}
