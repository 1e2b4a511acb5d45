package io.regent.cli.command.group;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The {@code group join --exec} command: started once the member has joined, told of every change of its
 * partitions by its {@link ReloadSignal} (restarted, signalled, or left to poll), stopped with SIGTERM then,
 * after {@link #GRACE_MS}, SIGKILL. A rewrite of the file and a start are one after the other, never
 * interleaved: a change lands before a start (the child finds it in the file) or after it (the child hears of
 * it), so none goes unannounced. A restart ends the old child before the revoked partition is released.
 */
final class PartitionsChild {
  /** How long the command gets between SIGTERM and SIGKILL, ms. */
  static final long GRACE_MS = 2_000;

  private final List<String> command;
  private final Path file;
  private Map<String, String> env = Map.of(); // guarded by this
  private final ReloadSignal reload;
  private final PrintWriter err;
  private final CompletableFuture<Integer> done;
  private Process process; // guarded by this
  private boolean stopped; // guarded by this

  PartitionsChild(List<String> command, Path file, ReloadSignal reload, PrintWriter err,
      CompletableFuture<Integer> done) {
    this.command = HangupReset.wrap(command, err);
    this.file = file;
    this.reload = reload;
    this.err = err;
    this.done = done;
  }

  /** Starts the command with {@code $REGENT_PARTITIONS_FILE} and {@code env} (the member's variables). */
  synchronized void start(Map<String, String> env) throws IOException {
    this.env = Map.copyOf(env);
    process = launch();
  }

  /** Rewrites the file with {@code write}, then tells the child if it has started (else it reads it then). */
  synchronized void rewrite(Runnable write) {
    write.run();
    if (process == null || stopped) {
      return;
    }
    if (reload.restart()) {
      end(process);
      try {
        process = launch();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot restart " + command.get(0), e);
      }
    } else if (reload.name() != null && process.isAlive()) {
      signal(reload.name(), process);
    }
  }

  /** Stops the child for good (SIGTERM, then SIGKILL after the grace period). */
  synchronized void stop() throws InterruptedException {
    stopped = true;
    if (process != null) {
      end(process);
    }
  }

  private Process launch() throws IOException {
    ProcessBuilder pb = new ProcessBuilder(command).inheritIO();
    pb.environment().putAll(env);
    pb.environment().put(GroupJoinCommand.PARTITIONS_FILE, file.toString());
    Process p = pb.start();
    p.onExit().thenAccept(this::exited);
    return p;
  }

  /** A child that ends by itself ends the member with its status; one ended by a restart or stop does not. */
  private void exited(Process p) {
    synchronized (this) {
      if (p != process || stopped) {
        return;
      }
    }
    String why = reload.describeExit(p.exitValue());
    if (why != null) {
      err.println(why);
      err.flush();
    }
    done.complete(p.exitValue());
  }

  private static void end(Process p) {
    if (!p.isAlive()) {
      return;
    }
    p.destroy();
    try {
      if (!p.waitFor(GRACE_MS, TimeUnit.MILLISECONDS)) {
        p.destroyForcibly().waitFor();
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  private static void signal(String name, Process p) {
    try {
      new ProcessBuilder("kill", "-s", name, String.valueOf(p.pid())).inheritIO().start().waitFor(5, TimeUnit.SECONDS);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
