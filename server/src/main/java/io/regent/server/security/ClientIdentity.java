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
  /** Where a connection's identity is kept once derived, in its TLS session's application values. */
  private static final String SESSION_KEY = ClientIdentity.class.getName();

  /** A derived identity, null CN included (a session's values cannot be null). */
  private record Derived(String commonName) {
  }

  private ClientIdentity() {
  }

  /**
   * The identity of the caller of {@code call}: the most specific CN of its verified client certificate's
   * subject; null when the connection is plaintext, the caller sent no certificate, or its subject has no CN.
   * Derived once per TLS session and kept in it: parsing the certificate's subject on every call cost each call of
   * an mTLS cluster (issue 35).
   */
  public static String of(ServerCall<?, ?> call) {
    SSLSession session = call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
    if (session == null) {
      return null;
    }
    if (session.getValue(SESSION_KEY) instanceof Derived d) {
      return d.commonName();
    }
    String cn;
    try {
      Certificate[] chain = session.getPeerCertificates();
      cn = chain.length > 0 && chain[0] instanceof X509Certificate x ? commonName(x) : null;
    } catch (SSLPeerUnverifiedException e) {
      cn = null;
    }
    session.putValue(SESSION_KEY, new Derived(cn));
    return cn;
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
