package io.regent.cli;

import io.regent.api.v1.LeaderKey;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * The command that {@code elect --exec} and {@code lock} run while holding a name: started with the
 * holder's environment and the same stdin/stdout/stderr, stopped with SIGTERM and, after a grace period,
 * SIGKILL (together with whatever it started).
 */
final class ExecChild {
  /** The fencing token of the grant. */
  static final String TOKEN = "REGENT_FENCING_TOKEN";
  /** The lease backing the holder. */
  static final String LEASE = "REGENT_LEASE_ID";
  /** The election or lock name. */
  static final String NAME = "REGENT_NAME";
  /** How long the command gets between SIGTERM and SIGKILL, ms. */
  static final long GRACE_MS = 2_000;

  private final Process process;

  private ExecChild(Process process) {
    this.process = process;
  }

  /**
   * Starts {@code command} for the holder {@code key}; {@code onExit} runs when it ends, however it ends.
   *
   * @throws IOException when the command cannot be started
   */
  static ExecChild start(List<String> command, LeaderKey key, TokenFile tokenFile, Runnable onExit)
      throws IOException {
    ProcessBuilder pb = new ProcessBuilder(command).inheritIO();
    Map<String, String> env = pb.environment();
    env.put(TOKEN, String.valueOf(key.getToken()));
    env.put(LEASE, String.valueOf(key.getLease()));
    env.put(NAME, key.getName());
    env.put(TokenFile.ENV, tokenFile.path().toString());
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new IOException("cannot run " + command.get(0) + ": " + e.getMessage(), e);
    }
    p.onExit().thenRun(onExit);
    return new ExecChild(p);
  }

  /** Waits for the command to end by itself; its exit status. */
  int await() throws InterruptedException {
    return process.waitFor();
  }

  /**
   * Stops the command and its descendants: SIGTERM, then SIGKILL to whatever is left after {@link #GRACE_MS}.
   *
   * @return the command's exit status (128 + the signal's number when a signal ended it)
   */
  int stop() throws InterruptedException {
    List<ProcessHandle> all = Stream.concat(Stream.of(process.toHandle()), process.descendants()).toList();
    all.forEach(ProcessHandle::destroy);
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(GRACE_MS);
    for (ProcessHandle h : all) {
      try {
        h.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException | ExecutionException e) {
        h.destroyForcibly();
      }
    }
    return process.waitFor();
  }
}
