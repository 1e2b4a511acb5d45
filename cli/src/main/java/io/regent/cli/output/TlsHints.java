package io.regent.cli.output;

import io.grpc.Status;
import java.util.Locale;

/**
 * Turns grpc-java's transport errors around TLS into one line that says what to change. A failed TLS
 * handshake reaches the client as UNAVAILABLE with Netty's wording ("Network closed for unknown reason",
 * "Connection reset by peer", "General OpenSslEngine problem", a channel pipeline dump), which names neither the cause nor the fix.
 */
final class TlsHints {
  private TlsHints() {
  }

  /** The explanation of an UNAVAILABLE status caused by TLS (or its absence), or null when it is not one. */
  static String explain(Status status) {
    if (status.getCode() != Status.Code.UNAVAILABLE) {
      return null;
    }
    StringBuilder text = new StringBuilder(String.valueOf(status.getDescription()));
    for (Throwable c = status.getCause(); c != null && c.getCause() != c; c = c.getCause()) {
      text.append(' ').append(c.getClass().getName()).append(' ').append(c.getMessage());
    }
    String t = text.toString().toLowerCase(Locale.ROOT);
    // A TLS server drops a plaintext connection; the client sees either wording, depending on timing.
    if (t.contains("network closed for unknown reason") || t.contains("connection reset by peer")) {
      return "the server closed the connection before answering; if it serves TLS, give its CA certificate "
          + "(--cacert, and --cert/--key when it requires client certificates)";
    }
    if (t.contains("certificate_required")) {
      return "TLS handshake refused: the server requires a client certificate (--cert and --key)";
    }
    if (t.contains("not an ssl/tls record")) {
      return "the server does not speak TLS: leave out --cacert, --cert and --key";
    }
    if (t.contains("ssl") || t.contains("certificate") || t.contains("pkix")) {
      return "TLS handshake failed: the server's certificate is not signed by the --cacert CA, or the server "
          + "does not accept the --cert client certificate (not signed by its CA)";
    }
    return null;
  }
}
