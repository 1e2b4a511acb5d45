package io.regent.cli.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One external command a test runs (pip, npm, an example), its output (stdout and stderr together) in a file, so
 * that a chatty command never blocks on a full pipe; {@link #finish} stops it and what it started on timeout.
 */
public final class CommandRun {
  private final List<String> command;
  private final Process process;
  private final Path log;

  private CommandRun(List<String> command, Process process, Path log) {
    this.command = command;
    this.process = process;
    this.log = log;
  }

  /** The outcome of a finished command: its exit code and output. */
  public record Result(List<String> command, int exit, String output) {
    /** This result, or an AssertionError with the command and its output unless it exited with 0. */
    public Result ok() {
      if (exit != 0) {
        throw new AssertionError(command + " exited with " + exit + ":\n" + output);
      }
      return this;
    }
  }

  /**
   * Starts {@code command} in {@code cwd} with {@code env} added to this JVM's environment; its output goes to a
   * new file in {@code logs}. An AssertionError naming the program when it cannot be started (not installed).
   */
  public static CommandRun start(Path cwd, Path logs, Map<String, String> env, String... command) throws IOException {
    Path log = Files.createTempFile(logs, "run-", ".log");
    ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    pb.environment().putAll(env);
    try {
      return new CommandRun(List.of(command), pb.start(), log);
    } catch (IOException e) {
      throw new AssertionError(command[0] + " could not be started (is it installed?)", e);
    }
  }

  /** Runs {@code command} to its end (at most {@code seconds}); its result, whatever the exit code. */
  public static Result run(Path cwd, Path logs, Map<String, String> env, long seconds, String... command)
      throws Exception {
    return start(cwd, logs, env, command).finish(seconds);
  }

  /**
   * Waits at most {@code seconds} for the command to end; its result. On timeout it is killed with everything it
   * started, and an AssertionError carries its output so far.
   */
  public Result finish(long seconds) throws Exception {
    boolean ended;
    try {
      ended = process.waitFor(seconds, TimeUnit.SECONDS);
    } finally {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
    String out = Files.readString(log, StandardCharsets.UTF_8);
    if (!ended) {
      throw new AssertionError(command + " still running after " + seconds + " s:\n" + out);
    }
    return new Result(command, process.exitValue(), out);
  }
}
