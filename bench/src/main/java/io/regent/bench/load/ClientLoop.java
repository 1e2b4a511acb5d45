package io.regent.bench.load;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * One benchmark client's loop. Closed loop: the next operation starts when the previous one ends, and its
 * latency is its service time. Open loop ({@code --rate}): operation k of client i is due at
 * {@code start + (k * clients + i) / rate}; a late start does not move the schedule, and latency is counted
 * from the due time, so a stall is charged to every operation it delayed (coordinated omission corrected,
 * as in wrk2).
 */
final class ClientLoop {
  /** An operation; returns {@link #TIME_IT}, {@link #SKIP}, or a latency in ns that it measured itself. */
  interface Op {
    long run() throws Exception;

    /** Untimed work after each run (e.g. revoking the lease it used); its errors count too. */
    default void cleanup() throws Exception {
    }
  }

  /** Record the operation's own duration (or, open loop, the time since it was due). */
  static final long TIME_IT = -1;
  /** Record nothing for this operation. */
  static final long SKIP = -2;

  /** Waits until a clock time. */
  interface Sleeper {
    void sleepUntil(long nanos) throws InterruptedException;
  }

  private final LatencyStats stats;
  private final LongSupplier clock;
  private final Sleeper sleeper;

  ClientLoop(LatencyStats stats, LongSupplier clock, Sleeper sleeper) {
    this.stats = stats;
    this.clock = clock;
    this.sleeper = sleeper;
  }

  /** A loop on {@link System#nanoTime()}, sleeping by {@link #parkUntil}. */
  static ClientLoop real(LatencyStats stats) {
    return new ClientLoop(stats, System::nanoTime, ClientLoop::parkUntil);
  }

  /** Parks the calling thread until {@link System#nanoTime()} reaches {@code until}. */
  static void parkUntil(long until) throws InterruptedException {
    long wait;
    while ((wait = until - System.nanoTime()) > 0) {
      LockSupport.parkNanos(wait);
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
    }
  }

  /**
   * When operation {@code k} of client {@code client} of {@code clients} is due on the open-loop schedule of
   * {@code rate} operations per second in total that starts at {@code start} (ns): {@code start + (k * clients +
   * client) / rate}, so that the clients' operations interleave evenly.
   */
  static long due(long start, long k, int client, int clients, double rate) {
    return start + (long) (1e9 * (k * (double) clients + client) / rate);
  }

  /** Pause after a failed operation in closed loop, so that an unavailable service is not spun on. */
  static final long ERROR_BACKOFF_NANOS = 10_000_000;

  /** Runs {@code op} as fast as it completes while {@code running}; 10 ms pause after an error. */
  void closed(Op op, BooleanSupplier running) throws InterruptedException {
    while (running.getAsBoolean()) {
      long t0 = clock.getAsLong();
      if (!once(op, t0)) {
        sleeper.sleepUntil(clock.getAsLong() + ERROR_BACKOFF_NANOS);
      }
    }
  }

  /**
   * Runs {@code op} on the open-loop schedule of client {@code client} of {@code clients} at a total of
   * {@code rate} operations per second, starting at {@code start}, while {@code running}.
   */
  void open(Op op, BooleanSupplier running, long start, double rate, int client, int clients)
      throws InterruptedException {
    for (long k = 0; running.getAsBoolean(); k++) {
      long due = due(start, k, client, clients, rate);
      sleeper.sleepUntil(due);
      if (!running.getAsBoolean()) {
        return;
      }
      once(op, due);
    }
  }

  /** Runs {@code op} once and records it; false when it failed. */
  private boolean once(Op op, long from) {
    boolean ok = true;
    try {
      long measured = op.run();
      if (measured == TIME_IT) {
        stats.record(clock.getAsLong() - from);
      } else if (measured >= 0) {
        stats.record(measured);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (Exception e) {
      stats.error(e);
      ok = false;
    }
    try {
      op.cleanup();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      stats.error(e);
      ok = false;
    }
    return ok;
  }
}
