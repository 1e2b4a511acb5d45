package io.regent.jepsen.nemesis;

import io.regent.jepsen.cluster.Cluster;
import io.regent.jepsen.cluster.Node;
import io.regent.jepsen.cluster.Probe;
import java.util.Optional;
import java.util.Random;

/**
 * {@code pause-serving}: {@code SIGSTOP} of the Raft leader — the node serving the clients' blocking campaigns,
 * which go to the leader — for 24–28 s: the shipped client's channel keepalive gives up on it after 15 s (a ping
 * after 10 s without a read, 5 s for its answer), its clients re-send their calls to another node, and a waiter
 * elected there has 9–13 s to be holding when the stalled node resumes and sees its first call cancelled (issue
 * #34). Value: the node's id; nil when no leader was known.
 */
final class PauseServingNemesis implements Nemesis {
  /** The client's keepalive time plus its timeout (RegentClientBuilder's defaults), ms. */
  static final long KEEPALIVE_GIVES_UP_MS = 15_000;

  private final Cluster cluster;
  private Node target;

  PauseServingNemesis(Cluster cluster) {
    this.cluster = cluster;
  }

  @Override
  public String name() {
    return "pause-serving";
  }

  @Override
  public Object start(Random random) {
    Optional<Node> leader = Probe.raftLeaderNode(cluster);
    if (leader.isEmpty()) {
      return null;
    }
    target = leader.get();
    target.pause();
    return target.id();
  }

  @Override
  public long durationMs(Random random) {
    return KEEPALIVE_GIVES_UP_MS + 9000 + random.nextInt(4000);
  }

  @Override
  public Object stop() throws Exception {
    if (target == null) {
      return null;
    }
    String id = target.id();
    target.heal();
    target = null;
    return id;
  }
}
