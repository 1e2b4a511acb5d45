package io.regent.server.security;

import java.nio.file.Path;

/**
 * A node's security settings (docs/security.md).
 *
 * @param api TLS of the public gRPC API; null serves it in plaintext
 * @param peer TLS of the Raft port (peer traffic and Regent's own Raft client); null: plaintext. Ratis
 *     always verifies the peer's certificate against {@code peer.ca()}, so it is required here
 * @param permissions the permissions file ({@link Permissions}); null allows every call to every caller
 */
public record Security(TlsFiles api, TlsFiles peer, Path permissions) {
  /** Plaintext everywhere, everything allowed. */
  public static final Security NONE = new Security(null, null, null);

  /**
   * Validates the settings.
   *
   * @throws IllegalArgumentException when peer TLS has no CA certificate
   */
  public Security {
    if (peer != null && peer.ca() == null) {
      throw new IllegalArgumentException("peer TLS needs a CA certificate to verify the other nodes");
    }
  }
}
