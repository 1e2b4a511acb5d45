package io.regent.server.api;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.function.LongSupplier;

/**
 * Names the attempts of blocking campaigns (docs/api.md "Attempts"): every call that arrives is an
 * attempt of its own, whose id the Campaign stores on the candidacy (and on the holder it becomes), so that the
 * cleanup of a cancelled call acts only while the candidacy is still its own.
 *
 * <p>An id is the call's arrival time as 12 hex digits of milliseconds since the epoch, then a random part: ids
 * sort by arrival, and apply lets a candidacy take only a newer attempt's id, so a stranded call's Campaign that
 * commits late (re-sent by Ratis after its node resumed) does not take the candidacy back from the re-send that
 * replaced it. The order needs node clocks within the clients' re-send gap of each other (seconds: a client re-sends
 * after its keepalive to a node times out); clocks never decide who holds a name, only whose cleanup may act.
 */
final class Attempts {
  private final LongSupplier wallMs;
  private final SecureRandom random = new SecureRandom();
  private final boolean unsafeCleanupAnyAttempt;

  /**
   * @param wallMs the wall clock, ms since the epoch
   * @param unsafeCleanupAnyAttempt TESTS ONLY (the negative control of Jepsen's retry workload): cleanups name no
   *     attempt and act on whatever the lease holds, as before attempts existed
   */
  Attempts(LongSupplier wallMs, boolean unsafeCleanupAnyAttempt) {
    this.wallMs = wallMs;
    this.unsafeCleanupAnyAttempt = unsafeCleanupAnyAttempt;
  }

  /** A new attempt id, 12 + 1 + 16 characters. */
  String next() {
    byte[] r = new byte[8];
    random.nextBytes(r);
    return String.format("%012x", wallMs.getAsLong() & 0xffff_ffff_ffffL) + "-" + HexFormat.of().formatHex(r);
  }

  /** The attempt a cleanup of {@code attempt} names: itself, or none in the negative control. */
  String cleanupAttempt(String attempt) {
    return unsafeCleanupAnyAttempt ? "" : attempt;
  }
}
