package io.regent.examples;

import io.regent.client.RegentClient;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The examples' command line, read as the {@code regent} CLI reads its own: the endpoints first (else
 * {@code $REGENT_ENDPOINTS}, else {@code 127.0.0.1:7101}), then the example's own arguments; TLS from
 * {@code --cacert CA --cert CERT --key KEY} anywhere on the line, else {@code $REGENT_CACERT}, {@code $REGENT_CERT},
 * {@code $REGENT_KEY} (docs/security.md). A CA alone speaks TLS; with a certificate and key, mutual TLS. An
 * example's own options ({@code --members 2}) are named when it parses its line.
 */
final class ClientArgs {
  private final List<String> positional = new ArrayList<>();
  private final Map<String, String> options = new HashMap<>();
  private Path cacert = env("REGENT_CACERT");
  private Path cert = env("REGENT_CERT");
  private Path key = env("REGENT_KEY");

  private ClientArgs() {
  }

  /**
   * Splits {@code args} into the TLS flags, the example's {@code options} (each followed by its value) and the
   * positional arguments.
   *
   * @throws IllegalArgumentException for another {@code --} option, or an option without its value
   */
  static ClientArgs parse(String[] args, String... options) {
    ClientArgs a = new ClientArgs();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--cacert" -> a.cacert = Path.of(value(args, ++i));
        case "--cert" -> a.cert = Path.of(value(args, ++i));
        case "--key" -> a.key = Path.of(value(args, ++i));
        default -> {
          if (List.of(options).contains(args[i])) {
            a.options.put(args[i], value(args, ++i));
          } else if (args[i].startsWith("--")) {
            throw new IllegalArgumentException("unknown option " + args[i]);
          } else {
            a.positional.add(args[i]);
          }
        }
      }
    }
    return a;
  }

  /** The value given for {@code option} (one named to {@link #parse}), or {@code otherwise}. */
  String option(String option, String otherwise) {
    return options.getOrDefault(option, otherwise);
  }

  /** The {@code i}th positional argument after the endpoints (0 is the first), or {@code otherwise}. */
  String arg(int i, String otherwise) {
    return positional.size() > i + 1 ? positional.get(i + 1) : otherwise;
  }

  /**
   * A client of the endpoints, over TLS when a CA is given; close it when done.
   *
   * @throws IllegalArgumentException for a bad endpoint, a certificate without its key or CA, an unreadable PEM file
   */
  RegentClient connect() {
    String endpoints = !positional.isEmpty() ? positional.get(0)
        : System.getenv().getOrDefault("REGENT_ENDPOINTS", "127.0.0.1:7101");
    if ((cert == null) != (key == null)) {
      throw new IllegalArgumentException("--cert and --key go together");
    }
    return RegentClient.builder().endpoints(List.of(endpoints.split(","))).caCert(cacert).clientCert(cert, key)
        .build();
  }

  private static String value(String[] args, int i) {
    if (i >= args.length) {
      throw new IllegalArgumentException(args[i - 1] + " needs a value");
    }
    return args[i];
  }

  private static Path env(String variable) {
    String v = System.getenv(variable);
    return v == null || v.isBlank() ? null : Path.of(v);
  }
}
