package io.regent.jepsen.checker;

import java.util.List;
import java.util.OptionalLong;

/**
 * The verdict of the {@code pause} check (jepsen/README.md): leases kept alive by clients renewing through every
 * node while the Raft leader is stopped ({@code SIGSTOP}) for 3 TTLs must all survive. The TTL floor exists so
 * that leases do not expire because the cluster was electing (docs/operations.md).
 *
 * <p>A <em>spurious</em> expiry is one the cluster made within one TTL of the send time of the lease's last
 * acknowledged keepalive: the server's rule (docs/architecture.md §3) forbids it, since the client may still
 * believe it holds the lease. Expiry is seen when a linearizable {@code TimeToLive} first answers NOT_FOUND, so
 * the time seen is at or after the expiry: a spurious expiry seen late may be counted as a plain one, never the
 * other way round. Any expiry, and any client step-down, is a failure too: the keepalives had a live majority
 * to go to. A <em>suspension</em> (a keeper that had no acknowledgement for 2/3 TTL stops acting, keeps renewing,
 * and resumes when a renewal is acknowledged: docs/architecture.md §3.6) is not: it is counted and its longest
 * duration reported, since it is the time holders could not act.
 */
public final class LeaseSurvival {
  private LeaseSurvival() {
  }

  /**
   * What one lease went through, times in ns on the runner's monotonic clock.
   *
   * @param via the node its client tried first
   * @param lastAckSentNanos send time of its last acknowledged keepalive (or of its grant)
   * @param expirySeenNanos when a TimeToLive first answered NOT_FOUND, if one did
   * @param stepDown why its keeper stepped down, if it did
   * @param suspensions how often its keeper suspended
   * @param longestSuspensionNanos the longest of those suspensions (until resumed, or until the end), ns
   */
  public record Lease(long id, String via, long lastAckSentNanos, OptionalLong expirySeenNanos, String stepDown,
                      int suspensions, long longestSuspensionNanos) {
    /** Whether it expired within one TTL of its last acknowledged keepalive. */
    public boolean spurious(long ttlNanos) {
      return expirySeenNanos.isPresent() && expirySeenNanos.getAsLong() - lastAckSentNanos < ttlNanos;
    }
  }

  /**
   * The outcome.
   *
   * @param spurious expiries within one TTL of the last acknowledged keepalive (must be 0)
   * @param expired every expiry seen
   * @param stepDowns keepers that stepped down
   * @param suspensions suspensions of every keeper together (allowed)
   * @param longestSuspensionNanos the longest of them, ns
   */
  public record Outcome(Verdict verdict, int spurious, int expired, int stepDowns, int suspensions,
                        long longestSuspensionNanos, String explanation) {
  }

  /**
   * Judges {@code leases} after {@code pauses} leader pauses: UNKNOWN when nothing was paused or kept (a check
   * that saw no fault proves nothing), INVALID when a lease expired or a keeper stepped down, else VALID.
   */
  public static Outcome judge(List<Lease> leases, long ttlNanos, int pauses) {
    int spurious = (int) leases.stream().filter(l -> l.spurious(ttlNanos)).count();
    int expired = (int) leases.stream().filter(l -> l.expirySeenNanos().isPresent()).count();
    int stepDowns = (int) leases.stream().filter(l -> l.stepDown() != null).count();
    int suspensions = leases.stream().mapToInt(Lease::suspensions).sum();
    long longest = leases.stream().mapToLong(Lease::longestSuspensionNanos).max().orElse(0);
    if (pauses == 0 || leases.isEmpty()) {
      return new Outcome(Verdict.UNKNOWN, spurious, expired, stepDowns, suspensions, longest,
          pauses == 0 ? "no Raft leader was paused" : "no lease was kept");
    }
    String counts = spurious + " spurious expiries, " + expired + " expiries, " + stepDowns + " step-downs of "
        + leases.size() + " leases over " + pauses + " leader pauses; " + suspensions + " suspensions, longest "
        + longest / 1_000_000 + " ms";
    boolean ok = spurious == 0 && expired == 0 && stepDowns == 0;
    return new Outcome(ok ? Verdict.VALID : Verdict.INVALID, spurious, expired, stepDowns, suspensions, longest,
        counts);
  }
}
