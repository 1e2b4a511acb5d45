package io.regent.cli.holder;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * SIGINT/SIGTERM handling for commands that hold something (a leadership, a lease, a stream): the first
 * signal runs the command's own orderly shutdown so it can release what it holds and exit 0; a second
 * signal ends the process at once.
 */
public final class Signals {
  private Signals() {
  }

  /** Runs {@code onFirst} on the first SIGINT or SIGTERM, instead of the JVM's default termination. */
  public static void onTermination(Runnable onFirst) {
    AtomicInteger count = new AtomicInteger();
    for (String name : new String[] {"INT", "TERM"}) {
      try {
        sun.misc.Signal.handle(new sun.misc.Signal(name), sig -> {
          if (count.incrementAndGet() == 1) {
            onFirst.run();
          } else {
            Runtime.getRuntime().halt(128 + sig.getNumber());
          }
        });
      } catch (IllegalArgumentException | UnsupportedOperationException e) {
        // Signal not available on this platform (or handled by the JVM itself): keep the default.
      }
    }
  }
}
