package io.regent.jepsen.nemesis;

import io.regent.jepsen.client.ClientPool;
import io.regent.jepsen.cluster.Node;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/** Picks what a fault hits: one node at random or a random majority; one client, a holder if any. */
final class Targets {
  private Targets() {
  }

  /** A client slot, and whether it held a name when it was picked. */
  record Client(int slot, boolean held) {
  }

  /**
   * A random slot of {@code pool} whose process holds a name, or any random slot when none does: the client
   * faults are aimed at a holder, whose lease is what they put at risk.
   */
  static Client clientPreferringHolder(ClientPool pool, Random random) {
    List<Integer> holders = new ArrayList<>();
    for (int i = 0; i < pool.size(); i++) {
      if (pool.holding(i)) {
        holders.add(i);
      }
    }
    boolean held = !holders.isEmpty();
    return new Client(held ? holders.get(random.nextInt(holders.size())) : random.nextInt(pool.size()), held);
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
