package io.regent.fencing;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The rules shared by every idempotent fenced write (in memory, JDBC, the ledger's LMDB), after Stripe's
 * idempotency keys (Stripe API reference, "Idempotent requests"): the client names each request with a key of
 * its choosing (a UUID, say) and sends the same key with every retry of that request; the resource stores the
 * first result with the effect, in one transaction, answers a retry with that result without running the effect
 * again, refuses the key for a request with other parameters ({@link IdempotencyKeyReusedException}), and
 * forgets keys after a retention that must be at least the client's longest retry window (Stripe: 24 hours).
 *
 * <p>Scope: a key is unique per resource key (a fence key, a ledger key); the same idempotency key under
 * another resource key is another request.
 *
 * <p>Order of the checks: the key is looked up first, so a retry is answered from its record even if the
 * writer's token has been overtaken since (the write it repeats was admitted when it was made, and a replay
 * writes nothing, so it cannot be a zombie's write); a key not on record then goes through the token check,
 * and a refused write records no key.
 */
public final class IdempotencyKeys {
  /** How long a key is remembered by default, from its first write: 24 h, as Stripe keeps its keys. */
  public static final Duration DEFAULT_RETENTION = Duration.ofHours(24);
  /** The longest idempotency key, in characters (Stripe's limit). */
  public static final int MAX_KEY_LENGTH = 255;
  /** The longest request hash, in characters (a SHA-512 in hex is 128). */
  public static final int MAX_HASH_LENGTH = 255;

  private IdempotencyKeys() {
  }

  /**
   * Checks an idempotency key: 1 to {@value #MAX_KEY_LENGTH} characters, not blank.
   *
   * @throws IllegalArgumentException naming the problem
   */
  public static String checkKey(String idempotencyKey) {
    Objects.requireNonNull(idempotencyKey, "idempotencyKey");
    if (idempotencyKey.isBlank()) {
      throw new IllegalArgumentException("idempotency key must not be empty or blank");
    }
    if (idempotencyKey.length() > MAX_KEY_LENGTH) {
      throw new IllegalArgumentException("idempotency key is " + idempotencyKey.length()
          + " characters, above the limit of " + MAX_KEY_LENGTH);
    }
    return idempotencyKey;
  }

  /**
   * Checks a request hash: 1 to {@value #MAX_HASH_LENGTH} characters.
   *
   * @throws IllegalArgumentException naming the problem
   */
  public static String checkHash(String requestHash) {
    Objects.requireNonNull(requestHash, "requestHash");
    if (requestHash.isEmpty() || requestHash.length() > MAX_HASH_LENGTH) {
      throw new IllegalArgumentException("request hash must be 1 to " + MAX_HASH_LENGTH + " characters, got "
          + requestHash.length());
    }
    return requestHash;
  }

  /**
   * Checks a retention: positive.
   *
   * @throws IllegalArgumentException when zero or negative
   */
  public static Duration checkRetention(Duration retention) {
    Objects.requireNonNull(retention, "retention");
    if (retention.isNegative() || retention.isZero()) {
      throw new IllegalArgumentException("idempotency key retention must be positive, got " + retention);
    }
    return retention;
  }

  /**
   * A request hash for {@code parts} (the request's parameters, e.g. the serialized row): SHA-256 in lower-case
   * hex (64 characters) over each part's length (4 bytes) and bytes, so that parts cannot run into each other.
   */
  public static String sha256(byte[]... parts) {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      for (byte[] p : parts) {
        d.update(new byte[] {(byte) (p.length >>> 24), (byte) (p.length >>> 16), (byte) (p.length >>> 8),
            (byte) p.length});
        d.update(p);
      }
      return HexFormat.of().formatHex(d.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }

  /** {@link #sha256(byte[]...)} of the UTF-8 bytes of {@code parts}. */
  public static String sha256(String... parts) {
    byte[][] bytes = new byte[parts.length][];
    for (int i = 0; i < parts.length; i++) {
      bytes[i] = parts[i].getBytes(StandardCharsets.UTF_8);
    }
    return sha256(bytes);
  }
}
