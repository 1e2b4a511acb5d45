package io.regent.fencing;

/**
 * A write was refused because its fencing token τ is not newer than the highest token H the resource has
 * admitted for the key (see {@link FencingMode}). Nothing was written and H is unchanged.
 *
 * <p>Unchecked: a stale token means the caller lost its ownership, which no retry with the same token can
 * repair; the caller should step down. Over gRPC it maps to {@code FAILED_PRECONDITION} (docs/architecture.md §7), and the
 * CLI to exit code 4.
 */
public final class StaleTokenException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String key;
  private final long token;
  private final long highest;
  private final FencingMode mode;

  /**
   * @param key the resource key the write was for
   * @param token τ, the token the write carried
   * @param highest H, the highest token admitted for {@code key} when the write was refused
   * @param mode the rule that refused it
   */
  public StaleTokenException(String key, long token, long highest, FencingMode mode) {
    super("stale fencing token " + token + " for key '" + key + "': highest admitted is " + highest + " ("
        + mode.name().toLowerCase(java.util.Locale.ROOT) + " mode needs token " + mode.rule() + " " + highest
        + ")");
    this.key = key;
    this.token = token;
    this.highest = highest;
    this.mode = mode;
  }

  /** The resource key the refused write was for. */
  public String key() {
    return key;
  }

  /** τ: the token the refused write carried. */
  public long token() {
    return token;
  }

  /** H: the highest token admitted for the key when the write was refused. */
  public long highest() {
    return highest;
  }

  /** The mode whose rule refused the write. */
  public FencingMode mode() {
    return mode;
  }
}
