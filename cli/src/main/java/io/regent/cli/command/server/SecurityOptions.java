package io.regent.cli.command.server;

import io.regent.server.security.Security;
import io.regent.server.security.TlsFiles;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The TLS and permission flags of {@code regent server} (docs/security.md); the names follow etcd's
 * ({@code --client-cert-auth}, {@code --peer-client-cert-auth}).
 */
public final class SecurityOptions {
  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

  @Option(names = "--tls-cert", paramLabel = "FILE",
      description = "serve the public API over TLS with this certificate (PEM; with --tls-key)")
  Path tlsCert;

  @Option(names = "--tls-key", paramLabel = "FILE", description = "private key of --tls-cert (PKCS#8 PEM)")
  Path tlsKey;

  @Option(names = "--tls-ca", paramLabel = "FILE",
      description = "CA certificate that API client certificates must chain to; a client that presents one is "
          + "known by its CN (see --permissions)")
  Path tlsCa;

  @Option(names = "--client-cert-auth", arity = "0..1", fallbackValue = "true", paramLabel = "true|false",
      description = "mutual TLS on the API: refuse clients without a certificate signed by --tls-ca")
  boolean clientCertAuth;

  @Option(names = "--peer-tls-cert", paramLabel = "FILE",
      description = "Raft peer traffic over TLS with this certificate (PEM; with --peer-tls-key and --peer-tls-ca)")
  Path peerCert;

  @Option(names = "--peer-tls-key", paramLabel = "FILE", description = "private key of --peer-tls-cert")
  Path peerKey;

  @Option(names = "--peer-tls-ca", paramLabel = "FILE",
      description = "CA certificate the other nodes' certificates must chain to")
  Path peerCa;

  @Option(names = "--peer-client-cert-auth", arity = "0..1", fallbackValue = "true", paramLabel = "true|false",
      description = "mutual TLS between peers: each node presents its certificate and requires one from the others")
  boolean peerClientCertAuth;

  @Option(names = "--permissions", paramLabel = "FILE",
      description = "who may do what to which names: lines IDENTITY PREFIX RIGHT[,RIGHT...] (docs/security.md); "
          + "default: everyone may do everything")
  Path permissions;

  /** Whether any of these flags was given. */
  boolean any() {
    return tlsCert != null || tlsKey != null || tlsCa != null || clientCertAuth || peerCert != null
        || peerKey != null || peerCa != null || peerClientCertAuth || permissions != null;
  }

  /** Whether the public API is secured: TLS on it, or a permissions file (peer TLS alone does not count). */
  boolean api() {
    return tlsCert != null || tlsKey != null || tlsCa != null || clientCertAuth || permissions != null;
  }

  /** The settings, checked; a usage error (one line) for an incomplete combination or an unreadable file. */
  Security security() {
    try {
      TlsFiles api = null;
      if (tlsCert != null || tlsKey != null) {
        api = new TlsFiles(abs(tlsCert), abs(tlsKey), abs(tlsCa), clientCertAuth);
      } else if (tlsCa != null || clientCertAuth) {
        throw new IllegalArgumentException("--tls-ca and --client-cert-auth need --tls-cert and --tls-key");
      }
      TlsFiles peer = null;
      if (peerCert != null || peerKey != null || peerCa != null) {
        if (peerCa == null) {
          throw new IllegalArgumentException("peer TLS needs --peer-tls-ca to verify the other nodes");
        }
        peer = new TlsFiles(abs(peerCert), abs(peerKey), abs(peerCa), peerClientCertAuth);
      } else if (peerClientCertAuth) {
        throw new IllegalArgumentException("--peer-client-cert-auth needs --peer-tls-cert, --peer-tls-key and "
            + "--peer-tls-ca");
      }
      return new Security(api, peer, abs(permissions));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(mixee.commandLine(), e.getMessage());
    }
  }

  private static Path abs(Path p) {
    return p == null ? null : p.toAbsolutePath();
  }
}
