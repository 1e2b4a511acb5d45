package io.regent.jepsen.nemesis;

import io.regent.jepsen.client.ClientPool;
import java.util.List;
import java.util.Random;

/**
 * {@code client-isolate}: cuts one client from the node it talks to, and from no other node; every other
 * client keeps all its links. The link hangs ({@link CuttableTcpProxy#cut()}: no error, no reset), as a node
 * behind a dead route or a frozen one looks to that client alone, while the cluster itself is healthy. The client must
 * fail over to another node and, if it holds a name, keep it: its keepalives must reach the cluster through
 * another node within its lease's TTL. A client that holds a name is preferred. Value at start: {@code [slot
 * "n2" held?]}; at stop: {@code [slot "n2" held-at-start? holds-now?]}.
 */
final class ClientIsolateNemesis implements Nemesis {
  private final ClientPool pool;
  private final ClientLinks links;
  private int slot = -1;
  private int node;
  private boolean held;

  ClientIsolateNemesis(ClientPool pool, ClientLinks links) {
    this.pool = pool;
    this.links = links;
  }

  @Override
  public String name() {
    return "client-isolate";
  }

  @Override
  public Object start(Random random) {
    Targets.Client target = Targets.clientPreferringHolder(pool, random);
    slot = target.slot();
    held = target.held();
    // A slot's first process talks to node (slot mod n) first (the pool rotates its endpoints).
    node = links.talkingTo(slot, slot % links.nodes());
    links.cut(slot, node);
    return List.of((long) slot, links.nodeId(node), held);
  }

  @Override
  public Object stop() {
    if (slot < 0) {
      return null;
    }
    links.healAll();
    Object value = List.of((long) slot, links.nodeId(node), held, pool.holding(slot));
    slot = -1;
    return value;
  }
}
