package io.regent.cli.command;

import io.regent.cli.cluster.ClusterDownCommand;
import io.regent.cli.cluster.ClusterUpCommand;
import io.regent.cli.cluster.PortBlock;
import io.regent.cli.cluster.ProcessCluster;
import io.regent.process.ChildProcess;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A 3-node {@code cluster up} in a directory of its own, for one test that pauses a node with SIGSTOP: closing it
 * resumes a node still paused, stops the cluster and deletes the directory.
 */
final class PausableCluster implements AutoCloseable {
  private final Path dir;
  private final ProcessCluster cluster;
  private long paused;

  private PausableCluster(Path dir, ProcessCluster cluster) {
    this.dir = dir;
    this.cluster = cluster;
  }

  /** Starts the cluster under a new temporary directory named with {@code prefix}, on a reserved port block. */
  static PausableCluster start(String prefix) throws Exception {
    Path dir = Files.createTempDirectory(prefix);
    try (PortBlock ports = PortBlock.reserve()) {
      return new PausableCluster(dir, ClusterUpCommand.up(dir.resolve("cluster"), 3, ports.base(), quiet()).cluster());
    }
  }

  /** The directory the cluster lives in ({@code cluster/} under it, as {@code cluster up} lays it out). */
  Path dir() {
    return dir;
  }

  ProcessCluster cluster() {
    return cluster;
  }

  /** Stops {@code node}'s process with SIGSTOP; one node at a time. */
  void pause(ProcessCluster.Node node) throws Exception {
    paused = cluster.process(node).orElseThrow().pid();
    ChildProcess.kill("STOP", List.of(paused));
  }

  /** Resumes the paused node with SIGCONT. */
  void resume() throws Exception {
    ChildProcess.kill("CONT", List.of(paused));
    paused = 0;
  }

  @Override
  public void close() throws Exception {
    try {
      if (paused != 0) {
        resume();
      }
      cluster.stop(ClusterDownCommand.GRACE_MS, quiet());
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static PrintWriter quiet() {
    return new PrintWriter(PrintWriter.nullWriter());
  }
}
