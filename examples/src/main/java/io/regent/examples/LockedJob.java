package io.regent.examples;

import io.regent.client.RegentClient;
import io.regent.client.RegentLock;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;

/**
 * A job that must never run twice at once, say a nightly report started by cron on two machines: each run takes a
 * lock by name, runs while holding it, and releases it. A second run started meanwhile waits, then runs with a
 * larger fencing token.
 *
 * <p>Run: {@code LockedJob [ENDPOINTS [NAME [STEPS]]] [--cacert CA --cert CERT --key KEY]} (defaults
 * {@code $REGENT_ENDPOINTS}, {@code nightly-report}, 3; TLS as for the {@code regent} CLI, see {@link ClientArgs}).
 * Prints {@code locked NAME token=T at=MS}, {@code step I token=T} per step and {@code unlocked NAME at=MS}
 * (MS: wall clock, ms), as the Python and TypeScript examples do. Exit 0 after every step, 1 when the lock was lost.
 */
public final class LockedJob {
  /**
   * The lock's lease TTL, ms: how long after this process dies (or hangs) another run may take the lock; the
   * {@code regent lock} default. The lock is lost when renewals fail for 2/3 of it: a shorter TTL is lost sooner
   * to a long GC pause or a starved machine (a 5 s one was, by a cold JVM on two cores at a load average of 30).
   */
  static final long TTL_MS = 10_000;

  private LockedJob() {
  }

  /** Runs the job once under the lock; see the class's comment for the arguments. */
  public static void main(String[] args) throws Exception {
    ClientArgs a = ClientArgs.parse(args);
    int exit;
    try (RegentClient client = a.connect()) {
      exit = run(client, a.arg(0, "nightly-report"), Integer.parseInt(a.arg(1, "3")), System.out);
    }
    System.exit(exit);
  }

  /** Runs {@code steps} steps of the job under lock {@code name}; 0 when all ran, 1 when the lock was lost first. */
  static int run(RegentClient client, String name, int steps, PrintStream out) throws InterruptedException {
    // The owner is published while the lock is held: `regent leader NAME` shows which process runs the job.
    String owner = ManagementFactory.getRuntimeMXBean().getName();
    try (RegentLock lock = new RegentLock(client, name, owner, TTL_MS)) {
      // Waits while another run holds the lock. The token grows with every acquisition of any name.
      long token = lock.lock();
      out.printf("locked %s token=%d at=%d%n", name, token, System.currentTimeMillis());
      try {
        for (int i = 1; i <= steps; i++) {
          // A lock is kept by renewing its lease in the background; a process paused longer than the TTL loses it.
          if (!lock.isHeld()) {
            out.printf("lost %s%n", name);
            return 1;
          }
          // Send the token with every write the job makes: a resource that refuses older tokens (FencingGuard,
          // JdbcFence: see FencedJdbcLeader) stops a run that lost the lock without noticing.
          out.printf("step %d token=%d%n", i, token);
          Thread.sleep(100); // the job's work
        }
        return 0;
      } finally {
        out.printf("unlocked %s at=%d%n", name, System.currentTimeMillis());
        lock.unlock(); // resign and revoke the lease: the next waiting run gets the lock now, not after the TTL
      }
    }
  }
}
