package io.regent.bench.load;

import java.nio.file.Path;

/**
 * How a benchmark client reaches a Regent cluster: plaintext ({@link #NONE}), TLS verifying the servers against
 * {@code caCert}, or mutual TLS with a client certificate whose CN is the client's identity (the key of the
 * per-identity quotas, docs/architecture.md §7.2). PEM files; a key is PKCS#8.
 *
 * @param caCert CA certificate the servers' certificates are checked against, or null for plaintext
 * @param cert client certificate, or null for none (then {@code key} is null too)
 * @param key the client certificate's private key, or null
 */
public record ClientTls(Path caCert, Path cert, Path key) {
  /** Plaintext, the identity {@code _default}. */
  public static final ClientTls NONE = new ClientTls(null, null, null);

  /** Whether the client speaks TLS. */
  public boolean enabled() {
    return caCert != null;
  }
}
