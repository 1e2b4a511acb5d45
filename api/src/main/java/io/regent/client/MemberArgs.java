package io.regent.client;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.regex.Pattern;

/**
 * Form checks of membership arguments ({@code regent member ...}, the {@code Cluster} service), shared by the
 * command line, which checks before it sends, and the server, which checks before anything is proposed.
 * Malformed arguments throw a {@link StatusRuntimeException} with status INVALID_ARGUMENT whose
 * description names the argument.
 */
public final class MemberArgs {
  /** Member ids: 1 to 64 letters, digits, '.', '_' or '-' (they name log lines, metrics and data dirs). */
  public static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");
  private static final Pattern HOST_PORT = Pattern.compile("([A-Za-z0-9._-]+|\\[[0-9A-Fa-f:.]+]):(\\d{1,5})");

  private MemberArgs() {
  }

  /** Returns {@code id}, or throws INVALID_ARGUMENT naming it. */
  public static String id(String id) {
    if (!ID.matcher(id).matches()) {
      throw invalid("member id '" + id + "' is invalid: expected 1-64 letters, digits, '.', '_' or '-'");
    }
    return id;
  }

  /** Returns {@code address} ({@code host:port}, port 1..65535), or throws INVALID_ARGUMENT naming {@code what}. */
  public static String address(String what, String address) {
    var m = HOST_PORT.matcher(address);
    if (!m.matches() || Integer.parseInt(m.group(2)) < 1 || Integer.parseInt(m.group(2)) > 65_535) {
      throw invalid(what + " '" + address + "' is invalid: expected HOST:PORT with a port in 1..65535");
    }
    return address;
  }

  private static StatusRuntimeException invalid(String message) {
    return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
  }
}
