package io.regent.server.replication;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a cancelled call's cleanup again until one run has committed: a blocking campaign's withdraw and resigns, an
 * etcd Campaign's or Lock's deletion of its own key. The cleanup is the only thing that takes a gone caller's
 * candidacy out of line, and one that could not be committed — a node that resumes after a pause proposes through
 * the leader it last knew, which is gone — would leave the candidacy to be elected while its lease lives, to a
 * caller that no longer waits (docs/api.md "Attempts"). A cleanup must therefore be safe to repeat: each names what
 * its own attempt created (an attempt id, a key's create revision), and once one run has applied the others change
 * nothing.
 *
 * <p>Retried only while the entry could not be committed ({@link Proposer.UnavailableException}), after 100 ms,
 * then twice as long each time up to 5 s, {@value #MAX_RUNS} runs at most (about five minutes); any other
 * failure is logged and ends it.
 */
public final class Cleanups {
  private static final Logger LOG = LoggerFactory.getLogger(Cleanups.class);
  /** The first pause before a run again, ms. */
  public static final long FIRST_PAUSE_MS = 100;
  /** The longest pause between two runs, ms. */
  public static final long MAX_PAUSE_MS = 5_000;
  /** Runs at most, the first included: 100 ms doubling to 5 s, then 5 s, adds up to about five minutes. */
  public static final int MAX_RUNS = 64;

  private final LongFunction<Executor> after;

  /** @param after an executor that runs its tasks after the given number of ms */
  public Cleanups(LongFunction<Executor> after) {
    this.after = after;
  }

  /** Cleanups whose repeats run on {@code executor} after their pause. */
  public static Cleanups on(Executor executor) {
    return new Cleanups(ms -> CompletableFuture.delayedExecutor(ms, TimeUnit.MILLISECONDS, executor));
  }

  /**
   * Runs {@code cleanup} now, and again while it fails for want of a commit.
   *
   * @param what what it cleans up, for the log ("withdrawing lease 7 from 'jobs'")
   * @param cleanup proposes the cleanup's entries; its future completes once they have applied
   */
  public void run(String what, Supplier<CompletableFuture<?>> cleanup) {
    run(what, cleanup, 1, FIRST_PAUSE_MS);
  }

  private void run(String what, Supplier<CompletableFuture<?>> cleanup, int runs, long pauseMs) {
    CompletableFuture<?> done;
    try {
      done = cleanup.get();
    } catch (RuntimeException e) {
      done = CompletableFuture.failedFuture(e);
    }
    done.whenComplete((r, err) -> {
      if (err == null) {
        return;
      }
      Throwable cause = err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
      if (cause instanceof Proposer.UnavailableException && runs < MAX_RUNS) {
        LOG.info("{} failed, again in {} ms: {}", what, pauseMs, cause.getMessage());
        after.apply(pauseMs).execute(() -> run(what, cleanup, runs + 1, Math.min(2 * pauseMs, MAX_PAUSE_MS)));
        return;
      }
      LOG.warn("{} failed after {} run(s): {}", what, runs, cause.getMessage());
    });
  }
}
