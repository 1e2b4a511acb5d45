package io.regent.cli.demo;

import io.regent.cli.cluster.ClusterDownCommand;
import io.regent.cli.cluster.ClusterUpCommand;
import io.regent.cli.cluster.ProcessCluster;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/** What a demo started: its {@code regent} children and its cluster, all stopped by {@link #stopEverything}. */
final class DemoProcesses {
  private final PrintWriter console;
  private final List<DemoProcess> children = new ArrayList<>();
  private volatile ProcessCluster cluster;

  /** @param console where the children's echoed lines go */
  DemoProcesses(PrintWriter console) {
    this.console = console;
  }

  /** Starts an {@code n}-node cluster in {@code dir} on ports from {@code base}, kept for {@link #stopEverything}. */
  ClusterUpCommand.Up clusterUp(Path dir, int n, int base) throws Exception {
    return clusterUp(dir, n, base, 1);
  }

  /** As above, each node with {@code cells} cells ({@code regent server --cells}). */
  ClusterUpCommand.Up clusterUp(Path dir, int n, int base, int cells) throws Exception {
    ClusterUpCommand.Up up = ClusterUpCommand.up(dir, n, base, cells == 1 ? null : cells,
        new PrintWriter(PrintWriter.nullWriter()));
    cluster = up.cluster();
    return up;
  }

  ProcessCluster cluster() {
    return cluster;
  }

  /** Starts a {@code regent} child, echoing the lines of its stdout and stderr that {@code echo} accepts. */
  synchronized DemoProcess start(String label, Predicate<String> echo, List<String> args) throws Exception {
    DemoProcess p = DemoProcess.start(label, console, echo, args);
    children.add(p);
    return p;
  }

  /** Stops the children, last started first (SIGCONT, SIGTERM, then SIGKILL), and the cluster's servers. */
  void stopEverything() throws Exception {
    List<DemoProcess> started;
    synchronized (this) {
      started = new ArrayList<>(children);
    }
    for (int i = started.size() - 1; i >= 0; i--) {
      started.get(i).close();
    }
    if (cluster != null) {
      cluster.stop(ClusterDownCommand.GRACE_MS, new PrintWriter(PrintWriter.nullWriter()));
    }
  }
}
