package io.regent.jepsen.compare;

import io.regent.jepsen.cluster.Cluster;
import io.regent.jepsen.cluster.ClusterSpec;
import io.regent.jepsen.cluster.DataDirs;
import io.regent.jepsen.cluster.Netns;
import io.regent.jepsen.cluster.Node;
import io.regent.jepsen.cluster.Probe;
import io.regent.jepsen.cluster.RunLock;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Regent as the Jepsen runner starts it ({@link Cluster}): 3 or 5 Raft nodes, or one single-writer process. */
final class RegentDeployment implements Deployment {
  private final String label;
  private final Cluster cluster;
  private final boolean singleWriter;

  private RegentDeployment(String label, Cluster cluster, boolean singleWriter) {
    this.label = label;
    this.cluster = cluster;
    this.singleWriter = singleWriter;
  }

  /**
   * Starts new nodes from {@code jar} with logs and data under {@code dir}, in network namespaces when
   * possible (in the slot {@code lock} holds); returns once they run (not yet healthy: see {@link Health}). Data
   * an earlier run left there is deleted first: each target is measured on a fresh cluster.
   */
  static RegentDeployment start(String label, int nodes, boolean singleWriter, Path jar, Path dir, RunLock lock)
      throws IOException {
    DataDirs.delete(dir.resolve("data"));
    ClusterSpec spec = new ClusterSpec(nodes, singleWriter, "auto", jar, dir, dir.resolve("data"),
        ClusterSpec.DEFAULT_JVM, List.of());
    return new RegentDeployment(label, Cluster.start(spec, lock), singleWriter);
  }

  @Override
  public String label() {
    return label;
  }

  @Override
  public String kind() {
    return "regent";
  }

  @Override
  public boolean singleWriter() {
    return singleWriter;
  }

  @Override
  public List<Node> nodes() {
    return cluster.nodes();
  }

  @Override
  public Optional<Netns> netns() {
    return cluster.netns();
  }

  @Override
  public Optional<Node> leader() {
    if (singleWriter) {
      return Optional.of(cluster.nodes().get(0));
    }
    return Probe.raftLeader(cluster).map(cluster::node);
  }

  @Override
  public void close() {
    cluster.close();
  }
}
