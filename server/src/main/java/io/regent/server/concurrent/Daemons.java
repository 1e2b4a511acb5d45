package io.regent.server.concurrent;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;

/** Background timers of a node: one named daemon thread each, so that they never keep a stopping JVM alive. */
public final class Daemons {
  private Daemons() {
  }

  /** A single-thread scheduler whose thread is a daemon called {@code name} (as seen in thread dumps and logs). */
  public static ScheduledExecutorService scheduler(String name) {
    return Executors.newSingleThreadScheduledExecutor(named(name));
  }

  /** A single-thread executor (tasks run one at a time, in order) whose thread is a daemon called {@code name}. */
  public static ExecutorService executor(String name) {
    return Executors.newSingleThreadExecutor(named(name));
  }

  private static ThreadFactory named(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}
