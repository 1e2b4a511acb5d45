package io.regent.cli.cluster;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A {@code regent} command for the PATH of a client's test fixture (the Python {@code regent_client.testing}, the
 * TypeScript {@code startCluster}), which start a cluster with {@code regent cluster up} when no
 * {@code REGENT_ENDPOINTS} is given: a shell script running this JVM's java, class path and main class
 * ({@link Launcher}), since the jar a user would name ({@code REGENT_JAR}) is packaged only after the tests.
 */
public final class RegentScript {
  private RegentScript() {
  }

  /** Writes {@code dir/regent}; the PATH to give a child process, {@code dir} first. */
  public static String writeIn(Path dir) throws IOException {
    Files.createDirectories(dir);
    String command = Launcher.javaCommand(Launcher.CLIENT_JVM).stream()
        .map(a -> "'" + a.replace("'", "'\\''") + "'").collect(Collectors.joining(" "));
    Path script = dir.resolve("regent");
    Files.writeString(script, "#!/bin/sh\nexec " + command + " \"$@\"\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    return String.join(":", List.of(dir.toString(), System.getenv().getOrDefault("PATH", "/usr/bin:/bin")));
  }

  /**
   * Stops the clusters a fixture started in {@code tmp} (its TMPDIR: {@code regent-cluster-<x>/cluster}) and did
   * not stop: a test run stopped on its timeout has its processes killed, but not the nodes, which
   * {@code cluster up} left running as no one's children. Nothing when the fixture stopped its cluster (it removes
   * the directory).
   */
  public static void stopLeftClusters(Path tmp) throws IOException {
    try (Stream<Path> dirs = Files.list(tmp)) {
      for (Path d : dirs.filter(p -> p.getFileName().toString().startsWith("regent-cluster-")).toList()) {
        Optional<ProcessCluster> left = ProcessCluster.load(d.resolve("cluster"));
        if (left.isPresent()) {
          left.get().stop(ClusterDownCommand.GRACE_MS, new PrintWriter(PrintWriter.nullWriter()));
        }
      }
    }
  }
}
