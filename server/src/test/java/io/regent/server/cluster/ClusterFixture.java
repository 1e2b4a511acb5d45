package io.regent.server.cluster;

import io.regent.server.config.ServerConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The setup the cluster tests share, as a JUnit extension: {@link LocalCluster}s started in a temporary
 * directory of their own and closed (then the directory removed) after each test, or after the class for a
 * cluster the whole class shares.
 *
 * <pre>
 *   &#64;RegisterExtension final ClusterFixture clusters = ClusterFixture.perTest();
 *   ...  LocalCluster cluster = clusters.start(3, c -&gt; c.snapshots(20, 8 * 1024));
 * </pre>
 */
public final class ClusterFixture implements AfterEachCallback, AfterAllCallback {
  private final boolean perClass;
  private final List<LocalCluster> started = new ArrayList<>();
  private Path dir;

  private ClusterFixture(boolean perClass) {
    this.perClass = perClass;
  }

  /** Clusters that a test starts and that end with it (register it as an instance field). */
  public static ClusterFixture perTest() {
    return new ClusterFixture(false);
  }

  /** Clusters that a class starts in {@code @BeforeAll} and that end with it (register it as a static field). */
  public static ClusterFixture perClass() {
    return new ClusterFixture(true);
  }

  /** Starts {@code size} nodes with default settings. */
  public LocalCluster start(int size) throws IOException {
    return start(size, UnaryOperator.identity());
  }

  /** Starts {@code size} nodes, each node's settings passed through {@code tweak}. */
  public LocalCluster start(int size, UnaryOperator<ServerConfig.Builder> tweak) throws IOException {
    LocalCluster c = LocalCluster.start(size, dir(), tweak);
    started.add(c);
    return c;
  }

  /** Starts {@code size} nodes, node i's settings passed through {@code tweak.apply(i)}. */
  public LocalCluster startEach(int size, java.util.function.IntFunction<UnaryOperator<ServerConfig.Builder>> tweak)
      throws IOException {
    LocalCluster c = LocalCluster.startEach(size, dir(), tweak);
    started.add(c);
    return c;
  }

  /** The directory holding the nodes' data directories ({@code dir()/n0}, ...), created on first use. */
  public synchronized Path dir() {
    if (dir == null) {
      try {
        dir = Files.createTempDirectory("regent-cluster-");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return dir;
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    if (!perClass) {
      closeAll();
    }
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    closeAll();
  }

  /** Closes every cluster this fixture started and removes their directory. */
  synchronized void closeAll() throws Exception {
    try {
      for (LocalCluster c : started) {
        c.close();
      }
    } finally {
      started.clear();
      if (dir != null) {
        try (Stream<Path> s = Files.walk(dir)) {
          for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
            Files.deleteIfExists(p);
          }
        }
        dir = null;
      }
    }
  }
}
