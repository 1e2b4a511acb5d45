package io.regent.server.security;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** Writes a CA and certificates for tests, as {@code regent certs init} does. */
final class TestCerts {
  private TestCerts() {
  }

  /** {@code dir/ca.*}, node certificates for {@code nodes} and client certificates for {@code clients}. */
  static void write(Path dir, List<String> nodes, List<String> clients) throws Exception {
    CertificateAuthority ca = CertificateAuthority.create("test CA " + dir.getFileName());
    ca.writeTo(dir);
    for (String n : nodes) {
      ca.issue(n, true, List.of("localhost", "127.0.0.1"), Duration.ofDays(1)).writeTo(dir, n);
    }
    for (String c : clients) {
      ca.issue(c, false, List.of(), Duration.ofDays(1)).writeTo(dir, c);
    }
  }

  /** API and peer TLS of node {@code id}: mutual TLS on both ports. */
  static Security mutual(Path dir, String id, Path permissions) {
    TlsFiles tls = new TlsFiles(dir.resolve(id + ".crt"), dir.resolve(id + ".key"), dir.resolve("ca.crt"), true);
    return new Security(tls, tls, permissions);
  }
}
