package io.regent.cli.command;

import io.grpc.ChannelCredentials;
import io.regent.cli.settings.DurationConverter;
import io.regent.client.RegentClient;
import io.regent.client.RegentClientBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** Options shared by every client command: where the cluster is, how to reach it (TLS) and how to print. */
public final class ClientOptions {
  /** Used when neither {@code --endpoints} nor {@code $REGENT_ENDPOINTS} is set. */
  public static final String DEFAULT_ENDPOINTS = "127.0.0.1:7101";

  /** Output formats of {@code -w}. */
  public enum Output { simple, json, table }

  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

  @Option(names = "--endpoints", paramLabel = "HOST:PORT[,...]",
      description = "API endpoints of any cluster nodes (default: $REGENT_ENDPOINTS, else " + DEFAULT_ENDPOINTS + ")")
  String endpoints;

  @Option(names = {"-w", "--write-out"}, paramLabel = "FORMAT", defaultValue = "simple",
      description = "output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}); json prints one object "
          + "per line; table is for the endpoint commands (elsewhere it prints as simple)")
  Output output = Output.simple;

  @Option(names = "--cacert", paramLabel = "FILE",
      description = "speak TLS, verifying the servers against this CA certificate (PEM) (default: $REGENT_CACERT)")
  Path cacert;

  @Option(names = "--cert", paramLabel = "FILE",
      description = "client certificate (PEM) for mutual TLS; its CN is your identity (default: $REGENT_CERT)")
  Path cert;

  @Option(names = "--key", paramLabel = "FILE",
      description = "the client certificate's private key (PKCS#8 PEM) (default: $REGENT_KEY)")
  Path key;

  @Option(names = "--dial-timeout", paramLabel = "DURATION", defaultValue = "5s", converter = DurationConverter.class,
      description = "how long connecting to one endpoint may take (default: ${DEFAULT-VALUE})")
  Duration dialTimeout = Duration.ofSeconds(5);

  @Option(names = "--command-timeout", paramLabel = "DURATION", defaultValue = "15s",
      converter = DurationConverter.class,
      description = "deadline of each call, failover to other endpoints included; a campaign waits as long as "
          + "its command's --timeout says instead (default: ${DEFAULT-VALUE})")
  Duration commandTimeout = Duration.ofSeconds(15);

  /** Whether {@code -w table} was asked for. */
  public boolean table() {
    return output == Output.table;
  }

  /** Whether {@code -w json} was asked for. */
  public boolean json() {
    return output == Output.json;
  }

  /** The endpoints to use, validated: {@code --endpoints}, else {@code $REGENT_ENDPOINTS}, else the default. */
  public List<String> endpointList() {
    String raw = endpoints;
    if (raw == null || raw.isBlank()) {
      raw = System.getenv("REGENT_ENDPOINTS");
    }
    if (raw == null || raw.isBlank()) {
      raw = DEFAULT_ENDPOINTS;
    }
    return parse(raw, mixee);
  }

  /** Parses and checks a comma-separated {@code host:port} list; a usage error when malformed. */
  public static List<String> parse(String raw, CommandSpec spec) {
    List<String> list = new ArrayList<>();
    for (String e : raw.split(",")) {
      String ep = e.trim();
      if (ep.isEmpty()) {
        continue;
      }
      int colon = ep.lastIndexOf(':');
      int port = -1;
      try {
        port = colon > 0 ? Integer.parseInt(ep.substring(colon + 1)) : -1;
      } catch (NumberFormatException ignored) {
        // reported below
      }
      if (port < 1 || port > 65535) {
        throw new ParameterException(spec.commandLine(), "invalid endpoint '" + ep + "': expected host:port");
      }
      list.add(ep);
    }
    if (list.isEmpty()) {
      throw new ParameterException(spec.commandLine(), "no endpoints given");
    }
    return list;
  }

  /**
   * A client over {@link #endpointList()}, over TLS when a CA certificate is given ({@code --cacert} or
   * {@code $REGENT_CACERT}); close it when done.
   */
  public RegentClient connect() {
    return connect(endpointList());
  }

  /**
   * A client over {@code endpoints}, with the TLS settings of {@link #credentials()}; close it when done. Given
   * one endpoint, it learns the cluster's others ({@code RegentClientBuilder#discoverEndpoints}).
   */
  public RegentClient connect(List<String> endpoints) {
    return builder(endpoints).build();
  }

  /**
   * A client of {@code endpoint} alone, which learns no other endpoint: for the commands that ask each endpoint
   * in turn ({@code endpoint status}, {@code endpoint health}).
   */
  public RegentClient connectOnly(String endpoint) {
    return builder(List.of(endpoint)).discoverEndpoints(false).build();
  }

  private RegentClientBuilder builder(List<String> endpoints) {
    Path[] files = tlsFiles();
    if (dialTimeout.isZero() || dialTimeout.isNegative() || commandTimeout.isZero() || commandTimeout.isNegative()) {
      throw new ParameterException(mixee.commandLine(), "--dial-timeout and --command-timeout must be positive");
    }
    return RegentClient.builder().endpoints(endpoints).caCert(files[0]).clientCert(files[1], files[2])
        .connectTimeout(dialTimeout).callTimeout(commandTimeout);
  }

  /**
   * Channel credentials from {@code --cacert --cert --key} (or {@code $REGENT_CACERT $REGENT_CERT
   * $REGENT_KEY}): plaintext without a CA. A usage error for a certificate without its key (or the reverse)
   * or a client certificate without a CA; an error naming the file when one cannot be read.
   */
  public ChannelCredentials credentials() {
    Path[] files = tlsFiles();
    return RegentClientBuilder.credentials(files[0], files[1], files[2]);
  }

  /** CA certificate, client certificate and key (each possibly null), checked for usage errors. */
  private Path[] tlsFiles() {
    Path ca = orEnv(cacert, "REGENT_CACERT");
    Path c = orEnv(cert, "REGENT_CERT");
    Path k = orEnv(key, "REGENT_KEY");
    if ((c == null) != (k == null)) {
      throw new ParameterException(mixee.commandLine(), "--cert and --key go together");
    }
    if (c != null && ca == null) {
      throw new ParameterException(mixee.commandLine(), "--cert needs --cacert (client certificates are for TLS)");
    }
    return new Path[] {ca, c, k};
  }

  private static Path orEnv(Path option, String variable) {
    if (option != null) {
      return option;
    }
    String v = System.getenv(variable);
    return v == null || v.isBlank() ? null : Path.of(v);
  }
}
