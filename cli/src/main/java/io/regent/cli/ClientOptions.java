package io.regent.cli;

import io.regent.client.RegentClient;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** Options shared by every client command: where the cluster is and how to print. */
public final class ClientOptions {
  /** Used when neither {@code --endpoints} nor {@code $REGENT_ENDPOINTS} is set. */
  public static final String DEFAULT_ENDPOINTS = "127.0.0.1:7101";

  /** Output formats of {@code -w}. */
  public enum Output { simple, json }

  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

  @Option(names = "--endpoints", paramLabel = "HOST:PORT[,...]",
      description = "API endpoints of any cluster nodes (default: $REGENT_ENDPOINTS, else " + DEFAULT_ENDPOINTS + ")")
  String endpoints;

  @Option(names = {"-w", "--write-out"}, paramLabel = "FORMAT", defaultValue = "simple",
      description = "output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}); json prints one object "
          + "per line")
  Output output = Output.simple;

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
  static List<String> parse(String raw, CommandSpec spec) {
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

  /** A client over {@link #endpointList()}; close it when done. */
  public RegentClient connect() {
    return RegentClient.connect(endpointList());
  }
}
