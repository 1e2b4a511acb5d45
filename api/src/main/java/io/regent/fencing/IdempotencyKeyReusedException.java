package io.regent.fencing;

/**
 * A write was refused because its idempotency key was already used, within the retention, for a request with
 * another request hash: a key names one request, and a different request under it is a client bug that no
 * retry can repair. Nothing was written, the effect did not run, and the key's first result is kept.
 *
 * <p>The rule is Stripe's for idempotency keys: "the idempotency layer compares incoming parameters to those
 * of the original request and errors if they're not the same to prevent accidental misuse" (Stripe API
 * reference, "Idempotent requests"). Unchecked, like {@link StaleTokenException}. Over gRPC (the ledger) it is
 * {@code ALREADY_EXISTS}, with this message as the description; the CLI exits 1.
 */
public final class IdempotencyKeyReusedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String key;
  private final String idempotencyKey;

  /**
   * @param key the resource key the write was for (idempotency keys are scoped to it)
   * @param idempotencyKey the reused idempotency key
   */
  public IdempotencyKeyReusedException(String key, String idempotencyKey) {
    super("idempotency key '" + idempotencyKey + "' for key '" + key + "' was already used for another request "
        + "(another request hash): nothing was written; a key names one request, use a new key for a new one");
    this.key = key;
    this.idempotencyKey = idempotencyKey;
  }

  /** The resource key the refused write was for. */
  public String key() {
    return key;
  }

  /** The idempotency key that was reused. */
  public String idempotencyKey() {
    return idempotencyKey;
  }
}
