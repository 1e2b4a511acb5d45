package io.regent.jepsen.nemesis;

import io.regent.jepsen.cluster.Cluster;
import io.regent.jepsen.cluster.Node;
import io.regent.jepsen.cluster.Probe;
import java.util.Optional;
import java.util.Random;

/**
 * {@code pause-serving}: {@code SIGSTOP} of the Raft leader — the node serving the clients' blocking campaigns,
 * which go to the leader — for 17–22 s, longer than the shipped client's channel keepalive (10 s, then 5 s for
 * the answer) takes to give up on it, so its clients re-send their calls to another node before it resumes and
 * sees the first ones cancelled (issue #34). Value: the node's id; nil when no leader was known.
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
    Optional<String> leader = Probe.raftLeader(cluster);
    if (leader.isEmpty() || cluster.nodes().stream().noneMatch(n -> n.id().equals(leader.get()))) {
      return null;
    }
    target = cluster.node(leader.get());
    target.pause();
    return target.id();
  }

  @Override
  public long durationMs(Random random) {
    return KEEPALIVE_GIVES_UP_MS + 2000 + random.nextInt(5000);
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
