package io.regent.bench.load;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The set-up's lease grants, sent again when the service shed them: a grant refused with RESOURCE_EXHAUSTED
 * (a node's admission limits under a flood, docs/architecture.md §7.2) changed nothing, so the set-up waits the
 * refusal's back-off and asks again instead of ending the run. Other failures end it as before: an UNAVAILABLE
 * or timed-out grant may have been made, and a benchmark must not keep leases it does not know of.
 */
final class SetupGrants {
  /** How long one lease's grant may keep being refused before the run gives up, ms. */
  static final long GIVE_UP_MS = 120_000;
  /** Back-off between refused grants, ms (the servers' default retry hint). */
  static final long BACKOFF_MS = 100;

  private SetupGrants() {
  }

  /**
   * Runs {@code grant} until it returns, waiting {@link #BACKOFF_MS} after each RESOURCE_EXHAUSTED.
   *
   * @return the lease id
   * @throws StatusRuntimeException the first failure of another kind, or the last refusal after {@link #GIVE_UP_MS}
   * @throws InterruptedException when interrupted while backing off
   */
  static long grant(LongSupplier grant) throws InterruptedException {
    long giveUp = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(GIVE_UP_MS);
    while (true) {
      try {
        return grant.getAsLong();
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.RESOURCE_EXHAUSTED || System.nanoTime() - giveUp > 0) {
          throw e;
        }
        Thread.sleep(BACKOFF_MS);
      }
    }
  }
}
