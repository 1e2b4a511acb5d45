package io.regent.server.concurrent;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The threads of one node's own work (docs/architecture.md §10): one scheduler for every timer, the threads that
 * continue after a Ratis client reply ({@link #replies()}), and one bounded pool for work that blocks or must stay off the threads that called it (LMDB reads, snapshot
 * streams, membership changes, the metrics endpoint, Observe and Group.Watch deliveries, the answers of waiting
 * campaigns, closing replaced Ratis clients).
 * Built by the node and passed to each component by constructor; Ratis's and gRPC's own threads are not here.
 *
 * <p>Timer tasks must be short and must not block: a task that needs to block hands itself to
 * {@link #blocking()}.
 */
public final class NodeExecutors implements AutoCloseable {
  /** Threads of the scheduler: two, so that one slow timer task does not hold up the lease-expiry scan. */
  static final int TIMER_THREADS = 2;
  /** Threads of the blocking pool. */
  static final int BLOCKING_THREADS = 8;
  /** Tasks the blocking pool queues before it refuses more (RESOURCE_EXHAUSTED at the API). */
  static final int BLOCKING_QUEUE = 10_000;

  /** Threads that take Ratis client replies off Ratis's own threads. */
  static final int REPLY_THREADS = 2;

  private final ScheduledExecutorService timers = Daemons.schedulers("regent-timer", TIMER_THREADS);
  private final ExecutorService replies = Daemons.fixed("regent-raft-reply", REPLY_THREADS);
  private final ExecutorService blocking = Daemons.bounded("regent-blocking", BLOCKING_THREADS, BLOCKING_QUEUE);

  /** The node's scheduler: every periodic or delayed task of the node. */
  public ScheduledExecutorService timers() {
    return timers;
  }

  /** The node's bounded pool for blocking work. */
  public ExecutorService blocking() {
    return blocking;
  }

  /**
   * Where the answers of the node's Ratis client requests continue (docs/architecture.md §10). Ratis completes a
   * reply's future inside its sliding window's lock; a continuation that sent the next request there (the
   * proposal batcher's next batch, a Confirm round's follow-up) would take another client's window lock while
   * holding this one, and two such replies on two clients deadlock (seen under 10 000 keepalives: every
   * proposal of the node stopped). Never refuses; its queue holds at most one task per outstanding request.
   */
  public ExecutorService replies() {
    return replies;
  }

  /**
   * Stops all three, interrupting running timer and blocking tasks; the queued replies still run (each
   * completes a caller's future). Waits up to a second for each.
   */
  @Override
  public void close() throws InterruptedException {
    timers.shutdownNow();
    blocking.shutdownNow();
    replies.shutdown();
    timers.awaitTermination(1, TimeUnit.SECONDS);
    blocking.awaitTermination(1, TimeUnit.SECONDS);
    replies.awaitTermination(1, TimeUnit.SECONDS);
  }
}
