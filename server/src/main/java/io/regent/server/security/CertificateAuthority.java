package io.regent.server.security;

import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A small certificate authority for local and test clusters ({@code regent certs init}): an ECDSA P-256 CA
 * and the node and client certificates it signs, written as PEM files (certificates {@code NAME.crt},
 * unencrypted PKCS#8 keys {@code NAME.key}, readable by the owner only).
 *
 * <p>Node certificates serve and dial (extended key usage serverAuth and clientAuth: a Raft peer is both)
 * and are valid for {@code localhost}, {@code 127.0.0.1} and any extra hosts given. Client certificates
 * carry only clientAuth; their subject CN is the identity the server checks permissions against. Not a
 * production PKI: no revocation, and the CA key sits beside the certificates (see docs/security.md).
 */
public final class CertificateAuthority {
  /** The CA's certificate and key file names in the directory. */
  public static final String CA = "ca";
  /** Lifetime of the CA certificate. */
  static final Duration CA_VALIDITY = Duration.ofDays(3650);

  private static final SecureRandom RANDOM = new SecureRandom();
  private final X509Certificate caCert;
  private final PrivateKey caKey;

  private CertificateAuthority(X509Certificate caCert, PrivateKey caKey) {
    this.caCert = caCert;
    this.caKey = caKey;
  }

  /** A new self-signed CA whose subject is {@code CN=<commonName>}. */
  public static CertificateAuthority create(String commonName) throws GeneralSecurityException {
    KeyPair kp = newKeyPair();
    X500Name subject = name(commonName);
    Instant now = Instant.now();
    try {
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(subject, serial(),
          Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(CA_VALIDITY)), subject, kp.getPublic());
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
      b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      b.addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(kp.getPublic()));
      return new CertificateAuthority(sign(b, kp.getPrivate()), kp.getPrivate());
    } catch (IOException e) {
      throw new GeneralSecurityException("cannot build the CA certificate: " + e.getMessage(), e);
    }
  }

  /** Loads the CA written by {@link #writeTo} ({@code dir/ca.crt}, {@code dir/ca.key}). */
  public static CertificateAuthority load(Path dir) throws IOException, GeneralSecurityException {
    return new CertificateAuthority(readCertificate(dir.resolve(CA + ".crt")), readKey(dir.resolve(CA + ".key")));
  }

  /** The CA certificate. */
  public X509Certificate certificate() {
    return caCert;
  }

  /**
   * Issues a certificate with subject {@code CN=<commonName>}.
   *
   * @param server whether it also serves TLS (a node): adds serverAuth and the subject alternative names
   * @param hosts DNS names or IP addresses it is valid for when {@code server}
   * @param validity how long it is valid from now
   */
  public Issued issue(String commonName, boolean server, List<String> hosts, Duration validity)
      throws GeneralSecurityException {
    KeyPair kp = newKeyPair();
    Instant now = Instant.now();
    try {
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(caCert, serial(),
          Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(validity)), name(commonName),
          kp.getPublic());
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyAgreement));
      b.addExtension(Extension.extendedKeyUsage, false, server
          ? new ExtendedKeyUsage(new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth})
          : new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth));
      b.addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(kp.getPublic()));
      b.addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(caCert));
      if (server) {
        b.addExtension(Extension.subjectAlternativeName, false, alternativeNames(hosts));
      }
      return new Issued(sign(b, caKey), kp.getPrivate());
    } catch (IOException e) {
      throw new GeneralSecurityException("cannot build the certificate of " + commonName + ": " + e.getMessage(), e);
    }
  }

  /** Writes {@code dir/ca.crt} and {@code dir/ca.key}. */
  public void writeTo(Path dir) throws IOException {
    new Issued(caCert, caKey).writeTo(dir, CA);
  }

  /** A certificate and its private key. */
  public record Issued(X509Certificate certificate, PrivateKey key) {
    /** Writes {@code dir/<name>.crt} and {@code dir/<name>.key} (the key readable by its owner only). */
    public void writeTo(Path dir, String name) throws IOException {
      Files.createDirectories(dir);
      Files.writeString(dir.resolve(name + ".crt"), pem(certificate));
      Path key = dir.resolve(name + ".key");
      Files.deleteIfExists(key);
      Files.createFile(key, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      // PKCS#8 ("BEGIN PRIVATE KEY"): the only unencrypted key form both grpc-java and Ratis's Netty read.
      Files.writeString(key, pem(new JcaPKCS8Generator(key(), null).generate()));
    }
  }

  /** Reads the first certificate of a PEM file. */
  public static X509Certificate readCertificate(Path file) throws IOException, GeneralSecurityException {
    try (Reader r = Files.newBufferedReader(file); PEMParser p = new PEMParser(r)) {
      Object o = p.readObject();
      if (!(o instanceof X509CertificateHolder h)) {
        throw new IOException(file + " holds no PEM certificate");
      }
      return new JcaX509CertificateConverter().getCertificate(h);
    }
  }

  private static PrivateKey readKey(Path file) throws IOException {
    try (Reader r = Files.newBufferedReader(file); PEMParser p = new PEMParser(r)) {
      Object o = p.readObject();
      if (!(o instanceof PrivateKeyInfo info)) {
        throw new IOException(file + " holds no unencrypted PKCS#8 private key");
      }
      return new JcaPEMKeyConverter().getPrivateKey(info);
    }
  }

  private static GeneralNames alternativeNames(List<String> hosts) {
    List<GeneralName> names = new ArrayList<>();
    for (String h : hosts) {
      boolean ip = h.matches("[0-9.]+") || h.contains(":");
      names.add(new GeneralName(ip ? GeneralName.iPAddress : GeneralName.dNSName, h));
    }
    return new GeneralNames(names.toArray(GeneralName[]::new));
  }

  /** Checks that {@code host} is an IP literal or a plausible DNS name (SANs must be one of the two). */
  public static String checkHost(String host) {
    if (host.matches("[0-9.]+") || host.contains(":")) {
      try {
        InetAddress.getByName(host); // a literal: no lookup happens
        return host;
      } catch (IOException e) {
        throw new IllegalArgumentException("'" + host + "' is not an IP address");
      }
    }
    if (!host.matches("[A-Za-z0-9*]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*")) {
      throw new IllegalArgumentException("'" + host + "' is neither an IP address nor a DNS name");
    }
    return host;
  }

  private static X500Name name(String commonName) {
    return new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.O, "Regent").addRDN(BCStyle.CN, commonName).build();
  }

  private static KeyPair newKeyPair() throws GeneralSecurityException {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
    return g.generateKeyPair();
  }

  private static BigInteger serial() {
    return new BigInteger(127, RANDOM).add(BigInteger.ONE);
  }

  private static X509Certificate sign(JcaX509v3CertificateBuilder b, PrivateKey key) throws GeneralSecurityException {
    try {
      ContentSigner signer = new JcaContentSignerBuilder("SHA256withECDSA").build(key);
      return new JcaX509CertificateConverter().getCertificate(b.build(signer));
    } catch (OperatorCreationException e) {
      throw new GeneralSecurityException("cannot sign: " + e.getMessage(), e);
    }
  }

  private static String pem(Object o) throws IOException {
    StringWriter s = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(s)) {
      w.writeObject(o);
    }
    return s.toString();
  }
}
