package io.regent.jepsen.nemesis;

import io.regent.jepsen.cluster.Cluster;
import io.regent.jepsen.cluster.Netns;
import io.regent.jepsen.cluster.Node;
import io.regent.jepsen.history.Keyword;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;

/**
 * {@code partition}: cuts links between node namespaces with blackhole routes (see {@link Netns}), in
 * one of three shapes chosen at random: random halves, one random node isolated, or a bridge (two
 * sides that cannot talk, and one node that talks to both). Heal removes every blackhole route. The
 * value is {@code [:halves [[a b] [c]]]}, {@code [:isolate [[a] [b c]]]} or {@code [:bridge [[a]
 * [b] [c]]]} (sides, the bridge node in the middle).
 */
final class PartitionNemesis implements Nemesis {
  private final Cluster cluster;

  PartitionNemesis(Cluster cluster) {
    this.cluster = cluster;
  }

  @Override
  public String name() {
    return "partition";
  }

  @Override
  public Optional<String> unavailable() {
    return cluster.netns().isPresent() ? Optional.empty()
        : Optional.of("partition needs network namespaces: " + cluster.loopbackReason().orElse("?"));
  }

  @Override
  public Object start(Random random) {
    List<Node> nodes = new ArrayList<>(cluster.nodes());
    Collections.shuffle(nodes, random);
    int shape = random.nextInt(nodes.size() >= 3 ? 3 : 2);
    if (shape == 0) {
      int half = nodes.size() / 2;
      return cut("halves", nodes.subList(0, half), nodes.subList(half, nodes.size()), List.of());
    }
    if (shape == 1) {
      return cut("isolate", nodes.subList(0, 1), nodes.subList(1, nodes.size()), List.of());
    }
    int side = (nodes.size() - 1) / 2;
    return cut("bridge", nodes.subList(0, side), nodes.subList(side + 1, nodes.size()),
        nodes.subList(side, side + 1));
  }

  /** Cuts every link between {@code a} and {@code b}; {@code bridge} stays connected to both. */
  private Object cut(String shape, List<Node> a, List<Node> b, List<Node> bridge) {
    Netns netns = cluster.netns().orElseThrow();
    for (Node x : a) {
      for (Node y : b) {
        netns.cut(index(x), index(y));
      }
    }
    List<Object> groups = new ArrayList<>();
    groups.add(Targets.ids(a));
    if (!bridge.isEmpty()) {
      groups.add(Targets.ids(bridge));
    }
    groups.add(Targets.ids(b));
    return List.of(Keyword.of(shape), groups);
  }

  private static int index(Node n) {
    return Integer.parseInt(n.id().substring(1));
  }

  @Override
  public Object stop() {
    cluster.netns().ifPresent(Netns::healAll);
    return null;
  }
}
