package io.regent.jepsen.compare;

import io.regent.jepsen.cluster.Netns;
import io.regent.jepsen.cluster.Node;
import java.util.List;
import java.util.Optional;

/** One target under test while it runs: its processes (driven by PID), endpoints, network and writer. */
interface Deployment extends AutoCloseable {
  /** The target's name in the results: {@code regent-3}, {@code regent-5}, {@code single-writer}, {@code etcd-3}. */
  String label();

  /** The client that drives it: {@code regent} or {@code etcd} (see {@code io.regent.bench.load.Target}). */
  String kind();

  /** True when one process serves everything (no replication, no quorum). */
  boolean singleWriter();

  /** The server processes. */
  List<Node> nodes();

  /** Every node's client endpoint, {@code host:port}, in node order. */
  default List<String> endpoints() {
    return nodes().stream().map(Node::endpoint).toList();
  }

  /** The network namespaces the nodes run in; empty when they share loopback (no partitions then). */
  Optional<Netns> netns();

  /** The node that orders writes now: the Raft leader, or the single writer; empty when none is known. */
  Optional<Node> leader();

  /** Stops every process and removes the namespaces. Idempotent. */
  @Override
  void close();
}
