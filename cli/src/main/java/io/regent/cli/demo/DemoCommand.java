package io.regent.cli.demo;

import io.regent.cli.holder.Signals;
import io.regent.cli.output.ExitCodes;
import io.regent.cli.settings.DurationConverter;
import io.regent.server.placement.Placement;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code regent demo}: a 3-node cluster, an election, a zombie leader fenced by the ledger, a crashed Raft leader. */
@Command(name = "demo", mixinStandardHelpOptions = true, subcommands = DemoOwnershipCommand.class,
    description = {"Shows fencing tokens at work on a throw-away local cluster.",
        "Starts 3 `regent server` processes and a fenced ledger in a temporary directory on free ports (from "
            + "27000). node-a is elected for \"jobs\" and runs a writer that appends to the ledger with its token; "
            + "node-a is frozen with SIGSTOP beyond its lease TTL, node-b is elected with a larger token and "
            + "appends; node-a is resumed and every write it attempts is rejected by the ledger, while node-a "
            + "notices that its lease is gone and steps down. Then the Raft leader itself is killed and the next "
            + "grant's token is larger still; that holder sends one append twice with an idempotency key, and "
            + "the ledger stores it once. Always stops what it started; keeps the node logs only when something "
            + "failed.",
        "Exits 0 when every check holds, 1 otherwise. `regent demo ownership`: the same for an ownership group."})
public final class DemoCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--ttl", paramLabel = "DURATION", defaultValue = "5s", converter = DurationConverter.class,
      description = "lease TTL of the candidates (default: ${DEFAULT-VALUE}; at least 1.8s)")
  Duration ttl;

  @Option(names = "--cells", paramLabel = "C", defaultValue = "1",
      description = "cells per node (regent server --cells; docs/architecture.md §14): \"jobs\" then sits in one of C "
          + "Raft groups, and step 8 kills that group's leader (default: ${DEFAULT-VALUE})")
  int cells;

  /** A demo's steps and what they started. */
  interface Script {
    /** Runs the steps; throws when a check fails. */
    void run() throws Exception;

    /** Stops every process the steps started (also after a failure or an interrupt). */
    void stopEverything() throws Exception;

    /** Whether every step ran and every check held. */
    boolean succeeded();
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    if (cells < 1 || cells > Placement.MAX_CELLS) {
      throw new ParameterException(spec.commandLine(), "--cells must be within 1.." + Placement.MAX_CELLS + ", not "
          + cells);
    }
    return perform(out, "regent-demo-", dir -> new DemoScript(out, dir, ttl.toMillis(), cells));
  }

  /**
   * Runs a demo in a new temporary directory: Ctrl-C or SIGTERM stops the current step, and whatever way it
   * ends, everything it started is stopped; the directory is removed unless a step failed (its node logs tell
   * why). Returns the exit code: 0, 130 when interrupted; a failed step throws.
   */
  static int perform(PrintWriter out, String dirPrefix, Function<Path, Script> steps) throws Exception {
    Path dir = Files.createTempDirectory(dirPrefix);
    Script script = steps.apply(dir);
    AtomicBoolean cleaned = new AtomicBoolean();
    AtomicBoolean interrupted = new AtomicBoolean();
    Thread self = Thread.currentThread();
    Signals.onTermination(() -> {
      interrupted.set(true);
      self.interrupt();
    });
    // the hook covers any other way out of the JVM
    Thread hook = new Thread(() -> cleanUp(script, dir, out, true, cleaned), "regent-demo-cleanup");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      script.run();
      return ExitCodes.OK;
    } catch (Exception e) {
      if (interrupted.get()) {
        out.println("Interrupted: cleaning up.");
        return 130;
      }
      throw e;
    } finally {
      Thread.interrupted();
      cleanUp(script, dir, out, interrupted.get(), cleaned);
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // already shutting down: the hook has run or is running
      }
    }
  }

  /** Stops everything; removes the directory unless a step failed (then its node logs tell why). */
  private static void cleanUp(Script script, Path dir, PrintWriter out, boolean interrupted, AtomicBoolean cleaned) {
    if (!cleaned.compareAndSet(false, true)) {
      return;
    }
    try {
      script.stopEverything();
      if (script.succeeded() || interrupted) {
        try (Stream<Path> files = Files.walk(dir)) {
          files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        out.println("Cleaned up: children and cluster stopped, " + dir + " removed.");
      } else {
        out.println("Cleaned up: children and cluster stopped; node logs kept in " + dir + ".");
      }
      out.flush();
    } catch (Exception e) {
      System.err.println("error: cleaning up " + dir + ": " + e.getMessage());
    }
  }
}
