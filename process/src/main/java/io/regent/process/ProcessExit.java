package io.regent.process;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Waits for a process that is not this JVM's child — what a command started, a node a previous
 * {@code regent cluster up} started — to end, on Linux.
 *
 * <p>{@link ProcessHandle#onExit()} cannot be used for that: for a process that is not its child the JDK polls
 * (first after 300 ms, then every 330, 360, … ms) and counts a zombie as alive. An orphan stays a zombie until
 * PID 1 reaps it, which on the 2-core machine this project is built on takes 1.4–2.3 s (15 of 15 orphans), as
 * long as the grace a command gets between SIGTERM and SIGKILL; a zombie whose parent lives but never reaps it
 * stays one for as long as the parent lives. Here a process has ended once it is gone or a zombie: it has run
 * its last instruction and only its reaping is left.
 */
public final class ProcessExit {
  /** How often {@link #await} looks, ms: no event tells this JVM that a process it did not start ended. */
  static final long POLL_MS = 10;

  private ProcessExit() {
  }

  /**
   * Whether {@code p} has ended: it is gone (its pid unused or reused by a later process) or it is a zombie.
   */
  public static boolean ended(ProcessHandle p) {
    if (!p.isAlive()) {
      return true;
    }
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
      char state = stat.substring(stat.lastIndexOf(')') + 1).trim().charAt(0);
      return state == 'Z' || state == 'X';
    } catch (NoSuchFileException e) {
      return true; // reaped between the two looks
    } catch (IOException e) {
      return !p.isAlive();
    }
  }

  /**
   * Waits until {@code p} has {@linkplain #ended ended} or {@link System#nanoTime()} reaches {@code deadlineNanos}.
   *
   * @return whether it ended by the deadline
   * @throws InterruptedException when the waiting thread is interrupted
   */
  public static boolean await(ProcessHandle p, long deadlineNanos) throws InterruptedException {
    while (!ended(p)) {
      long left = deadlineNanos - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      Thread.sleep(Math.min(POLL_MS, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left))));
    }
    return true;
  }
}
