package io.regent.server.security;

import io.grpc.ServerCredentials;
import io.grpc.TlsServerCredentials;
import java.io.IOException;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.security.TlsConf.CertificatesConf;
import org.apache.ratis.security.TlsConf.PrivateKeyConf;

/** Turns {@link TlsFiles} into grpc-java server credentials (the API) and Ratis parameters (the Raft port). */
public final class TlsCredentials {
  private TlsCredentials() {
  }

  /**
   * Server credentials of the public API. With a CA but without {@code clientCertAuth}, a client
   * certificate is optional: a caller that presents one (signed by the CA) is known by its CN, one that does
   * not is anonymous. With {@code clientCertAuth} the handshake fails without one.
   *
   * @throws IOException when a PEM file cannot be read or parsed
   */
  public static ServerCredentials api(TlsFiles tls) throws IOException {
    TlsServerCredentials.Builder b = TlsServerCredentials.newBuilder().keyManager(tls.cert().toFile(),
        tls.key().toFile());
    if (tls.ca() != null) {
      b.trustManager(tls.ca().toFile());
      b.clientAuth(tls.clientCertAuth() ? TlsServerCredentials.ClientAuth.REQUIRE
          : TlsServerCredentials.ClientAuth.OPTIONAL);
    }
    return b.build();
  }

  /**
   * Ratis parameters putting the Raft port on TLS: {@code GrpcConfigKeys.TLS.setConf} (the parameter
   * {@code raft.grpc.tls.conf}), which Ratis 3.3.0's {@code GrpcFactory} uses for the server, client and
   * admin channels alike unless one of {@code GrpcConfigKeys.Server/Client/Admin.setTlsConf} overrides it.
   * Ratis always checks the other side's certificate against {@code ca}; with {@code clientCertAuth} the
   * node also presents its own certificate when dialing (mutual TLS) and requires one from every peer.
   * The node's own Raft client (proposals, confirmations) uses the same parameters.
   */
  public static Parameters peer(TlsFiles tls) {
    GrpcTlsConfig conf = GrpcTlsConfig.newBuilder()
        .setName("regent-peer")
        .setPrivateKey(new PrivateKeyConf(tls.key().toFile()))
        .setKeyCertificates(new CertificatesConf(tls.cert().toFile()))
        .setTrustCertificates(new CertificatesConf(tls.ca().toFile()))
        .setMutualTls(tls.clientCertAuth())
        .build();
    Parameters p = new Parameters();
    GrpcConfigKeys.TLS.setConf(p, conf);
    return p;
  }
}
