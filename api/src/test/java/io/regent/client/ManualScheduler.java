package io.regent.client;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler and clock for deterministic tests: tasks run on the test's thread, in time order, only while
 * {@link #advance} moves the clock past their due time. {@link #nanoTime} is its clock.
 */
final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {
  private final PriorityQueue<Task> queue =
      new PriorityQueue<>(Comparator.comparingLong((Task t) -> t.due).thenComparingLong(t -> t.seq));
  private long now = 1_000_000_000L;
  private long seq;
  private boolean shutdown;

  /** The clock, ns. */
  synchronized long nanoTime() {
    return now;
  }

  /** Moves the clock by {@code ms} without running anything (time passing inside a task). */
  synchronized void jump(long ms) {
    now += TimeUnit.MILLISECONDS.toNanos(ms);
  }

  /** Moves the clock forward by {@code ms}, running every task that falls due on the way. */
  void advance(long ms) {
    long end;
    synchronized (this) {
      end = now + TimeUnit.MILLISECONDS.toNanos(ms);
    }
    while (true) {
      Task next;
      synchronized (this) {
        next = queue.peek();
        if (next == null || next.due > end) {
          now = Math.max(now, end);
          return;
        }
        queue.poll();
        now = Math.max(now, next.due);
      }
      if (!next.cancelled) {
        next.body.run();
      }
    }
  }

  /** Tasks still waiting (not cancelled). */
  synchronized int pending() {
    return (int) queue.stream().filter(t -> !t.cancelled).count();
  }

  @Override
  public synchronized ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    Task t = new Task(command, now + unit.toNanos(Math.max(0, delay)), seq++);
    queue.add(t);
    return t;
  }

  @Override
  public void execute(Runnable command) {
    schedule(command, 0, TimeUnit.NANOSECONDS);
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    throw new UnsupportedOperationException();
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
    throw new UnsupportedOperationException();
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
    throw new UnsupportedOperationException();
  }

  @Override
  public synchronized void shutdown() {
    shutdown = true;
  }

  @Override
  public synchronized List<Runnable> shutdownNow() {
    shutdown = true;
    queue.clear();
    return new ArrayList<>();
  }

  @Override
  public synchronized boolean isShutdown() {
    return shutdown;
  }

  @Override
  public synchronized boolean isTerminated() {
    return shutdown;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return true;
  }

  private final class Task implements ScheduledFuture<Object> {
    final Runnable body;
    final long due;
    final long seq;
    volatile boolean cancelled;

    Task(Runnable body, long due, long seq) {
      this.body = body;
      this.due = due;
      this.seq = seq;
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(due - nanoTime(), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed o) {
      return Long.compare(getDelay(TimeUnit.NANOSECONDS), o.getDelay(TimeUnit.NANOSECONDS));
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      cancelled = true;
      return true;
    }

    @Override
    public boolean isCancelled() {
      return cancelled;
    }

    @Override
    public boolean isDone() {
      return cancelled;
    }

    @Override
    public Object get() {
      throw new UnsupportedOperationException();
    }

    @Override
    public Object get(long timeout, TimeUnit unit) {
      throw new UnsupportedOperationException();
    }
  }
}
