package io.regent.jepsen.nemesis;

import io.regent.jepsen.cluster.Node;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/** Picks the nodes a fault hits: one at random, or a random majority. */
final class Targets {
  private Targets() {
  }

  /** One random node (probability 1/2) or a random majority. */
  static List<Node> oneOrMajority(List<Node> nodes, Random random) {
    List<Node> shuffled = new ArrayList<>(nodes);
    Collections.shuffle(shuffled, random);
    int n = random.nextBoolean() ? 1 : nodes.size() / 2 + 1;
    return List.copyOf(shuffled.subList(0, Math.min(n, shuffled.size())));
  }

  /** The ids of the nodes, as an EDN vector of strings. */
  static List<Object> ids(List<Node> nodes) {
    return new ArrayList<>(nodes.stream().map(Node::id).toList());
  }
}
