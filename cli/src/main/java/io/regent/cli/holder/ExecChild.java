package io.regent.cli.holder;

import io.regent.api.v1.LeaderKey;
import io.regent.process.ChildProcess;
import io.regent.process.ProcessExit;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The command that {@code elect --exec} and {@code lock} run while holding a name: started with the
 * holder's environment and the same stdin/stdout/stderr; frozen (SIGSTOP) while the holder is suspended and
 * thawed (SIGCONT) when it resumes (docs/architecture.md §3.6); stopped with SIGTERM and, after a grace period,
 * SIGKILL. Each signal reaches the command together with whatever it started.
 */
public final class ExecChild {
  /** The fencing token of the grant. */
  public static final String TOKEN = "REGENT_FENCING_TOKEN";
  /** The lease backing the holder. */
  static final String LEASE = "REGENT_LEASE_ID";
  /** The election or lock name. */
  static final String NAME = "REGENT_NAME";
  /** How long the command gets between SIGTERM and SIGKILL, ms. */
  static final long GRACE_MS = 2_000;

  private final Process process;
  private boolean stopping; // guarded by this: once stopped, a late suspend must not freeze it again

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

  /** The command's process (its descendants are what it started). */
  ProcessHandle handle() {
    return process.toHandle();
  }

  /** Waits for the command to end by itself; its exit status. */
  int await() throws InterruptedException {
    return process.waitFor();
  }

  /**
   * Freezes the command and its descendants (SIGSTOP) so that none of them acts while the holder is unsure of
   * its lease; unless it is being stopped. The command first, so it starts nothing more; then what it started,
   * again until no new process appears.
   */
  synchronized void suspend() {
    if (stopping) {
      return;
    }
    Set<Long> frozen = new HashSet<>();
    while (true) {
      List<Long> fresh = pids();
      fresh.removeAll(frozen);
      if (fresh.isEmpty()) {
        return;
      }
      signal("STOP", fresh);
      frozen.addAll(fresh);
    }
  }

  /** Thaws the command and its descendants (SIGCONT): the holder resumed; unless it is being stopped. */
  synchronized void resume() {
    if (!stopping) {
      signal("CONT", pids());
    }
  }

  /**
   * Stops the command and its descendants: SIGTERM, then SIGKILL to whatever is left after {@link #GRACE_MS}.
   * A frozen command gets SIGCONT right after the SIGTERM, so it handles the TERM before it runs any more of its
   * own code. What the command started is not this JVM's child: whether it ended is judged by
   * {@link ProcessExit}, which does not wait for its reaping.
   *
   * @return the command's exit status (128 + the signal's number when a signal ended it)
   */
  int stop() throws InterruptedException {
    return stop(GRACE_MS);
  }

  /** Like {@link #stop()}, SIGKILL after {@code graceMs} (&gt;= 0) instead of {@link #GRACE_MS}. */
  int stop(long graceMs) throws InterruptedException {
    List<ProcessHandle> all;
    synchronized (this) {
      stopping = true;
      all = handles().toList();
      all.forEach(ProcessHandle::destroy);
      signal("CONT", all.stream().filter(ProcessHandle::isAlive).map(ProcessHandle::pid).toList());
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMs);
    for (ProcessHandle h : all) {
      if (!ProcessExit.await(h, deadline)) {
        h.destroyForcibly();
      }
    }
    return process.waitFor();
  }

  /**
   * Kills the command and its descendants at once (SIGKILL), frozen or not: the holder lost its lease, so the
   * command must not run one more instruction as holder — a SIGTERM handler would, and a frozen command thawed
   * to handle SIGTERM would run first (docs/architecture.md §3.6).
   *
   * @return the command's exit status (128 + 9)
   */
  int kill() throws InterruptedException {
    synchronized (this) {
      stopping = true;
      handles().toList().forEach(ProcessHandle::destroyForcibly);
    }
    return process.waitFor();
  }

  private Stream<ProcessHandle> handles() {
    return Stream.concat(Stream.of(process.toHandle()), process.descendants());
  }

  private List<Long> pids() {
    return handles().filter(ProcessHandle::isAlive).map(ProcessHandle::pid).collect(Collectors.toList());
  }

  /** {@code kill -SIGNAL pids}; one of them may have exited meanwhile (kill still signals the others). */
  private static void signal(String signal, List<Long> pids) {
    if (pids.isEmpty()) {
      return;
    }
    try {
      ChildProcess.kill(signal, pids);
    } catch (IllegalStateException e) {
      // a process of the tree exited between listing and signalling
    }
  }
}
