package io.regent.jepsen.cluster;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * What cluster to run.
 *
 * @param nodes 3 or 5 (1 for the single-writer target)
 * @param singleWriter run {@code regent server --single-writer} (one process, no Raft) instead of Raft
 * @param network {@code auto} (namespaces when possible), {@code netns} (required) or {@code loopback}
 * @param jar the shaded CLI jar, {@code cli/target/regent.jar}
 * @param logDir where node logs go (the run's store directory)
 * @param dataRoot where node data directories go
 * @param jvmOptions options for each server JVM
 * @param serverArgs extra arguments for {@code regent server} (e.g. {@code --unsafe-local-grants})
 */
public record ClusterSpec(int nodes, boolean singleWriter, String network, Path jar, Path logDir,
    Path dataRoot, List<String> jvmOptions, List<String> serverArgs) {

  /** Default server JVM options: small heap, serial GC, C1 only (2-core machines run 5 of them). */
  public static final List<String> DEFAULT_JVM =
      List.of("-Xms64m", "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  /** Validates. */
  public ClusterSpec {
    Objects.requireNonNull(jar, "jar");
    if (!List.of("auto", "netns", "loopback").contains(network)) {
      throw new IllegalArgumentException("--network must be auto, netns or loopback: " + network);
    }
    if (singleWriter ? nodes != 1 : nodes < 1) {
      throw new IllegalArgumentException("bad node count " + nodes);
    }
    jvmOptions = List.copyOf(jvmOptions);
    serverArgs = List.copyOf(serverArgs);
  }
}
