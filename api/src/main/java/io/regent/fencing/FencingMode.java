package io.regent.fencing;

/**
 * Which tokens a guard admits, given the highest token H it has already admitted for a key.
 *
 * <p>A key that has admitted nothing has H = 0; tokens are at least 1, so the first write always passes.
 */
public enum FencingMode {
  /**
   * Admits τ iff τ &gt; H: every write needs a fresh token (the single-writer guard; with Regent, obtained
   * by a {@code FreshToken} call before each externally visible write).
   */
  STRICT(">"),
  /**
   * Admits τ iff τ ≥ H: a holder may write many times with the token of its one grant (Chubby sequencers,
   * etcd revisions), while any older holder is refused.
   */
  MONOTONE(">=");

  private final String rule;

  FencingMode(String rule) {
    this.rule = rule;
  }

  /** Whether a write tagged {@code token} may follow the highest admitted token {@code highest}. */
  public boolean admits(long token, long highest) {
    return this == STRICT ? token > highest : token >= highest;
  }

  /** The comparison this mode requires of τ against H, as written in SQL and in messages. */
  public String rule() {
    return rule;
  }
}
