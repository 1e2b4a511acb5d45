package io.regent.jepsen.nemesis;

import io.regent.jepsen.cluster.Cluster;
import io.regent.jepsen.cluster.Node;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** {@code kill}: {@code kill -9} of one random node or of a random majority; heal restarts them on their data. */
final class KillNemesis implements Nemesis {
  private final Cluster cluster;
  private final List<Node> killed = new ArrayList<>();

  KillNemesis(Cluster cluster) {
    this.cluster = cluster;
  }

  @Override
  public String name() {
    return "kill";
  }

  @Override
  public Object start(Random random) {
    List<Node> targets = Targets.oneOrMajority(cluster.nodes(), random);
    targets.forEach(Node::kill);
    killed.addAll(targets);
    return Targets.ids(targets);
  }

  @Override
  public Object stop() throws IOException {
    List<Object> ids = Targets.ids(killed);
    for (Node n : killed) {
      n.start();
    }
    killed.clear();
    return ids;
  }
}
