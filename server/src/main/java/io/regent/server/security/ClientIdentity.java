package io.regent.server.security;

import io.grpc.Grpc;
import io.grpc.ServerCall;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/** A caller's identity: the subject CN of the client certificate it presented in the TLS handshake. */
public final class ClientIdentity {
  private ClientIdentity() {
  }

  /**
   * The identity of the caller of {@code call}: the most specific CN of its verified client certificate's
   * subject; null when the connection is plaintext, the caller sent no certificate, or its subject has no CN.
   */
  public static String of(ServerCall<?, ?> call) {
    SSLSession session = call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
    if (session == null) {
      return null;
    }
    try {
      Certificate[] chain = session.getPeerCertificates();
      return chain.length > 0 && chain[0] instanceof X509Certificate x ? commonName(x) : null;
    } catch (SSLPeerUnverifiedException e) {
      return null;
    }
  }

  /** The most specific (leftmost in RFC 2253 form) CN of the certificate's subject; null when it has none. */
  public static String commonName(X509Certificate cert) {
    try {
      String cn = null;
      // getRdns() lists the RDNs right to left; the last CN seen is the leftmost, most specific one.
      for (Rdn rdn : new LdapName(cert.getSubjectX500Principal().getName()).getRdns()) {
        if (rdn.getType().equalsIgnoreCase("CN")) {
          cn = String.valueOf(rdn.getValue());
        }
      }
      return cn;
    } catch (InvalidNameException e) {
      return null;
    }
  }
}
