package io.regent.server.concurrent;

import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Executors of named daemon threads, so that thread dumps and logs say what runs where and a stopping JVM is
 * never kept alive by them.
 */
public final class Daemons {
  private Daemons() {
  }

  /** A single-thread executor (tasks run one at a time, in order) whose thread is a daemon called {@code name}. */
  public static ExecutorService executor(String name) {
    return Executors.newSingleThreadExecutor(named(name));
  }

  /**
   * A scheduler of {@code threads} threads called {@code name-1}, {@code name-2}, ...; cancelled tasks are
   * removed at once, so that a timer re-armed often does not pile up in its queue.
   */
  public static ScheduledExecutorService schedulers(String name, int threads) {
    ScheduledThreadPoolExecutor s = new ScheduledThreadPoolExecutor(threads, numbered(name));
    s.setRemoveOnCancelPolicy(true);
    return s;
  }

  /**
   * A pool of {@code threads} threads called {@code name-1}, ... with an unbounded queue: for tasks whose
   * number is bounded elsewhere (one per outstanding Ratis request), which must never be refused.
   */
  public static ExecutorService fixed(String name, int threads) {
    return Executors.newFixedThreadPool(threads, numbered(name));
  }

  /**
   * A pool of at most {@code threads} threads called {@code name-1}, ... (started on demand, ended after a
   * minute idle) with a queue of at most {@code queue} tasks; a task beyond that is refused with
   * {@link java.util.concurrent.RejectedExecutionException}, so a flood of work costs bounded memory.
   */
  public static ExecutorService bounded(String name, int threads, int queue) {
    ThreadPoolExecutor p = new ThreadPoolExecutor(threads, threads, 1, TimeUnit.MINUTES,
        new ArrayBlockingQueue<>(queue), numbered(name), new ThreadPoolExecutor.AbortPolicy());
    p.allowCoreThreadTimeOut(true);
    return p;
  }

  /**
   * Runs every task at once, each on a daemon thread of its own called {@code name-1}, {@code name-2}, ..., and
   * waits up to {@code timeoutMs} for all of them: for the blocking steps of a node's close, which must end in
   * bounded time while the node's own executors are being stopped. A task still running then goes on alone.
   *
   * @return whether every task ended within {@code timeoutMs}
   * @throws InterruptedException when interrupted while waiting (the tasks go on)
   */
  public static boolean runAll(String name, List<Runnable> tasks, long timeoutMs) throws InterruptedException {
    if (tasks.isEmpty()) {
      return true;
    }
    ExecutorService threads = Executors.newFixedThreadPool(tasks.size(), numbered(name));
    tasks.forEach(threads::execute);
    threads.shutdown();
    return threads.awaitTermination(timeoutMs, TimeUnit.MILLISECONDS);
  }

  private static ThreadFactory numbered(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> named(name + "-" + n.incrementAndGet()).newThread(r);
  }

  private static ThreadFactory named(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}
