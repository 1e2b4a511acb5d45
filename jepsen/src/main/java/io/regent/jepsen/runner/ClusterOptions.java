package io.regent.jepsen.runner;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Where and how the commands that start a Regent cluster run it: {@code test} and {@code pause} mix it in (and {@code overload}). */
public final class ClusterOptions {
  @Option(names = "--network", defaultValue = "auto",
      description = "auto (namespaces when root and `ip netns` work), netns or loopback (default: ${DEFAULT-VALUE})")
  String network;

  @Option(names = "--store", defaultValue = "${env:JEPSEN_STORE:-jepsen/store}",
      description = "store root (default: $JEPSEN_STORE, else jepsen/store)")
  Path store;

  @Option(names = "--jar", defaultValue = "${env:REGENT_JAR:-cli/target/regent.jar}",
      description = "the shaded server jar (default: $REGENT_JAR, else cli/target/regent.jar)")
  Path jar;
}
