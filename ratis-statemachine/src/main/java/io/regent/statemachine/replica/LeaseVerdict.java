package io.regent.statemachine.replica;

/**
 * What the ready leader's lease clock says of one lease that a Confirm renews or asks about
 * (docs/architecture.md §3.3): measured, with the time it has left; unvouched, when this node cannot answer for
 * it; or expiring.
 *
 * @param kind which of the three
 * @param remainingMs with {@link Kind#MEASURED}: the time the lease has left, ms (&gt;= 0; a renewal's is its
 *     TTL); 0 otherwise
 */
public record LeaseVerdict(Kind kind, long remainingMs) {
  /** The three answers. */
  public enum Kind {
    /** The ready leader of the Confirm's term measured (and, for a renewal, renewed) the lease. */
    MEASURED,
    /**
     * This node cannot vouch for the lease: it is not the ready leader of the term, or an entry applied after
     * the caller read the lease ended it, or a renewal without an entry meets a checkpoint (§3.8). Only a
     * Confirm round may answer.
     */
    UNVOUCHED,
    /** The lease's deadline has passed: the leader decided it expires, and its Expire may not have applied yet. */
    EXPIRING
  }

  /** Not vouched for (see {@link Kind#UNVOUCHED}). */
  public static final LeaseVerdict UNVOUCHED = new LeaseVerdict(Kind.UNVOUCHED, 0);
  /** Expiring (see {@link Kind#EXPIRING}). */
  public static final LeaseVerdict EXPIRING = new LeaseVerdict(Kind.EXPIRING, 0);

  /** Measured with {@code remainingMs} left. @throws IllegalArgumentException when negative */
  public static LeaseVerdict measured(long remainingMs) {
    if (remainingMs < 0) {
      throw new IllegalArgumentException("remaining " + remainingMs + " ms < 0");
    }
    return new LeaseVerdict(Kind.MEASURED, remainingMs);
  }
}
