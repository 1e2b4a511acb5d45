package io.regent.jepsen.nemesis;

import io.regent.jepsen.cluster.Cluster;
import io.regent.jepsen.cluster.Node;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** {@code pause}: {@code SIGSTOP} of one random node or of a random majority; heal sends {@code SIGCONT}. */
final class PauseNemesis implements Nemesis {
  private final Cluster cluster;
  private final List<Node> paused = new ArrayList<>();

  PauseNemesis(Cluster cluster) {
    this.cluster = cluster;
  }

  @Override
  public String name() {
    return "pause";
  }

  @Override
  public Object start(Random random) {
    List<Node> targets = Targets.oneOrMajority(cluster.nodes(), random);
    targets.forEach(Node::pause);
    paused.addAll(targets);
    return Targets.ids(targets);
  }

  @Override
  public Object stop() {
    List<Object> ids = Targets.ids(paused);
    paused.forEach(Node::resume);
    paused.clear();
    return ids;
  }
}
