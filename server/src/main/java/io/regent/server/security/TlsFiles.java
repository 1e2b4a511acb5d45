package io.regent.server.security;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The PEM files of one TLS endpoint (the public API, or the Raft peer port).
 *
 * @param cert this node's certificate chain (PEM)
 * @param key its private key (unencrypted PKCS#8 PEM, as written by {@code regent certs init})
 * @param ca the CA certificate(s) that callers' (and, for peers, servers') certificates must chain to;
 *     null for an API that does not ask for client certificates
 * @param clientCertAuth mutual TLS: a caller without a certificate signed by {@code ca} is refused during
 *     the handshake
 */
public record TlsFiles(Path cert, Path key, Path ca, boolean clientCertAuth) {
  /**
   * Validates the combination and that every file is readable.
   *
   * @throws IllegalArgumentException naming the missing file or setting
   */
  public TlsFiles {
    if (cert == null || key == null) {
      throw new IllegalArgumentException("TLS needs both a certificate and a key");
    }
    if (clientCertAuth && ca == null) {
      throw new IllegalArgumentException("client certificate authentication needs a CA certificate");
    }
    for (Path p : new Path[] {cert, key, ca}) {
      if (p != null && !Files.isReadable(p)) {
        throw new IllegalArgumentException("cannot read " + p);
      }
    }
  }
}
