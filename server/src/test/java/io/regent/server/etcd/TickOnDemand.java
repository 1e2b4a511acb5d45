package io.regent.server.etcd;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler whose fixed-delay tasks run when the test says so, never by the clock: the gateway's leader looks
 * and a watch stream's progress ticks, fired in place of an election timeout or etcd's ten minutes.
 */
final class TickOnDemand extends ScheduledThreadPoolExecutor {
  private final List<Runnable> ticks = new ArrayList<>();

  TickOnDemand() {
    super(1);
  }

  @Override
  public synchronized ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, long initial, long delay,
                                                                TimeUnit unit) {
    ticks.add(task);
    return schedule(() -> { }, 1, TimeUnit.DAYS);
  }

  /** Runs every fixed-delay task once, on the caller's thread. */
  synchronized void tick() {
    ticks.forEach(Runnable::run);
  }
}
