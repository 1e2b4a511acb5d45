package io.regent.cli.output;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/** The transport errors seen against TLS servers (`regent cluster up --tls`) become a line that says the fix. */
class TlsHintsTest {
  @Test
  void plaintextClientAgainstTlsServer() {
    assertThat(ExitCodes.message(Status.UNAVAILABLE.withDescription("Network closed for unknown reason")
        .asRuntimeException())).startsWith("UNAVAILABLE: the server closed the connection").contains("--cacert");
  }

  @Test
  void missingClientCertificate() {
    assertThat(TlsHints.explain(Status.UNAVAILABLE.withDescription("ssl exception").withCause(new SSLHandshakeException(
        "error:1000045c:SSL routines:OPENSSL_internal:TLSV1_ALERT_CERTIFICATE_REQUIRED"))))
        .contains("requires a client certificate (--cert and --key)");
  }

  @Test
  void certificateOfAnotherCa() {
    assertThat(TlsHints.explain(Status.UNAVAILABLE.withDescription("io exception Channel Pipeline: [SslHandler#0]")
        .withCause(new SSLHandshakeException("General OpenSslEngine problem")))).startsWith("TLS handshake failed");
  }

  @Test
  void otherFailuresKeepTheirOwnMessage() {
    assertThat(TlsHints.explain(Status.UNAVAILABLE.withDescription("no quorum"))).isNull();
    assertThat(TlsHints.explain(Status.NOT_FOUND.withDescription("ssl"))).isNull();
    assertThat(ExitCodes.message(Status.UNAVAILABLE.withDescription("no quorum").asRuntimeException()))
        .isEqualTo("UNAVAILABLE: no quorum");
  }
}
