package io.regent.cli.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.cli.Regent;
import io.regent.server.security.CertificateAuthority;
import io.regent.server.security.ClientIdentity;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class CertsCommandTest {
  @TempDir
  Path dir;

  private int run(String... args) {
    CommandLine cmd = Regent.commandLine();
    cmd.setOut(new PrintWriter(new StringWriter()));
    cmd.setErr(new PrintWriter(new StringWriter()));
    return cmd.execute(args);
  }

  @Test
  void initWritesACaAndNodeAndClientCertificatesItSigned() throws Exception {
    assertThat(run("certs", "init", "--dir", dir.toString(), "--nodes", "n1,n2", "--clients", "admin",
        "--hosts", "node1.example,10.0.0.7")).isZero();
    X509Certificate ca = CertificateAuthority.readCertificate(dir.resolve("ca.crt"));
    X509Certificate n1 = CertificateAuthority.readCertificate(dir.resolve("n1.crt"));
    X509Certificate admin = CertificateAuthority.readCertificate(dir.resolve("admin.crt"));
    n1.verify(ca.getPublicKey());
    admin.verify(ca.getPublicKey());
    assertThat(ClientIdentity.commonName(admin)).isEqualTo("admin");
    assertThat(n1.getSubjectAlternativeNames()).extracting(l -> String.valueOf(l.get(1)))
        .containsExactlyInAnyOrder("localhost", "127.0.0.1", "node1.example", "10.0.0.7");
    assertThat(n1.getExtendedKeyUsage()).containsExactlyInAnyOrder("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2");
    assertThat(admin.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.2");
    assertThat(admin.getSubjectAlternativeNames()).isNull();
    for (String key : List.of("ca.key", "n1.key", "n2.key", "admin.key")) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve(key))))
          .isEqualTo("rw-------");
      assertThat(Files.readString(dir.resolve(key))).startsWith("-----BEGIN PRIVATE KEY-----");
    }
  }

  @Test
  void aSecondRunKeepsTheCaAndExistingCertificatesAndAddsTheMissingOnes() throws Exception {
    assertThat(run("certs", "init", "--dir", dir.toString(), "--nodes", "n1", "--clients=")).isZero();
    String ca = Files.readString(dir.resolve("ca.crt"));
    String n1 = Files.readString(dir.resolve("n1.crt"));
    assertThat(run("certs", "init", "--dir", dir.toString(), "--nodes", "n1,n2", "--clients", "ops")).isZero();
    assertThat(Files.readString(dir.resolve("ca.crt"))).isEqualTo(ca);
    assertThat(Files.readString(dir.resolve("n1.crt"))).isEqualTo(n1);
    CertificateAuthority.readCertificate(dir.resolve("ops.crt"))
        .verify(CertificateAuthority.readCertificate(dir.resolve("ca.crt")).getPublicKey());
  }

  @Test
  void badNamesAreUsageErrorsAndWriteNothing() {
    assertThat(run("certs", "init", "--dir", dir.resolve("x").toString(), "--clients", "a b")).isEqualTo(2);
    assertThat(run("certs", "init", "--dir", dir.resolve("x").toString(), "--nodes", "n1", "--clients", "n1"))
        .isEqualTo(2);
    assertThat(dir.resolve("x")).doesNotExist();
  }
}
