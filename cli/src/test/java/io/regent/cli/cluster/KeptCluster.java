package io.regent.cli.cluster;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A {@code regent cluster up} that a shared test extension keeps for the whole run ({@link SharedClusterUp},
 * {@link SharedTlsClusterUp}): started in a temporary directory on a reserved block of ports ({@link PortBlock}),
 * and on {@link #close} stopped (SIGTERM, then SIGKILL after {@link ClusterDownCommand#GRACE_MS}), its nodes' logs
 * copied to {@code logs} (a failure in one class may come from the cluster's past) and its directory removed.
 * JUnit closes it when the root context ends (an {@link AutoCloseable} in the store).
 */
final class KeptCluster implements AutoCloseable {
  /** What starts the cluster in {@code dir}, on the block of ports from {@code basePort}. */
  @FunctionalInterface
  interface Up {
    ProcessCluster up(Path dir, int basePort) throws Exception;
  }

  final Path dir;
  final ProcessCluster cluster;
  private final Path logs;

  private KeptCluster(Path dir, ProcessCluster cluster, Path logs) {
    this.dir = dir;
    this.cluster = cluster;
    this.logs = logs;
  }

  /**
   * Starts a cluster with {@code up} in a new temporary directory named from {@code prefix}; what {@code up}
   * fails with comes back unchecked, the directory removed ({@code cluster up} stops what it started).
   */
  static KeptCluster start(String prefix, Path logs, Up up) {
    Path dir = null;
    try (PortBlock ports = PortBlock.reserve()) {
      dir = Files.createTempDirectory(prefix);
      return new KeptCluster(dir, up.up(dir, ports.base()), logs);
    } catch (Exception e) {
      if (dir != null) {
        delete(dir);
      }
      throw e instanceof IOException io ? new UncheckedIOException(io) : new IllegalStateException(e);
    }
  }

  @Override
  public void close() throws IOException {
    try {
      cluster.stop(ClusterDownCommand.GRACE_MS, quiet());
      Files.createDirectories(logs);
      for (ProcessCluster.Node n : cluster.nodes()) {
        Path log = cluster.dir().resolve(n.id() + ".log");
        if (Files.exists(log)) {
          Files.copy(log, logs.resolve(n.id() + ".log"), StandardCopyOption.REPLACE_EXISTING);
        }
      }
    } finally {
      delete(dir);
    }
  }

  /** Where the commands that start a cluster write what a test does not read. */
  static PrintWriter quiet() {
    return new PrintWriter(PrintWriter.nullWriter());
  }

  private static void delete(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
