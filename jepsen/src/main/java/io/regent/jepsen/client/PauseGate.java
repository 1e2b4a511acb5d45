package io.regent.jepsen.client;

/**
 * A client's stop-the-world switch, for the {@code client-pause} nemesis: every thread of one logical
 * client (its operation thread and its lease-renewal thread) passes through {@link #await()} at its
 * checkpoints and blocks there while the gate is shut, like a process in a long GC pause. The clock
 * keeps running, so the client's own lease deadline passes while it sleeps.
 */
public final class PauseGate {
  private long pausedUntilNanos;
  private boolean shut;

  /** Shuts the gate for {@code nanos} (or until {@link #open()}). */
  public synchronized void pause(long nanos) {
    shut = true;
    pausedUntilNanos = System.nanoTime() + nanos;
  }

  /** Opens the gate now. */
  public synchronized void open() {
    shut = false;
    notifyAll();
  }

  /** True while shut. */
  public synchronized boolean paused() {
    return shut && System.nanoTime() - pausedUntilNanos < 0;
  }

  /** Blocks while the gate is shut. */
  public synchronized void await() throws InterruptedException {
    while (shut) {
      long left = pausedUntilNanos - System.nanoTime();
      if (left <= 0) {
        shut = false;
        break;
      }
      wait(Math.max(1, left / 1_000_000));
    }
  }
}
