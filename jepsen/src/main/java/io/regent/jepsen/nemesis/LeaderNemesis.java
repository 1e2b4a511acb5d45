package io.regent.jepsen.nemesis;

import io.regent.jepsen.cluster.Cluster;
import io.regent.jepsen.cluster.Netns;
import io.regent.jepsen.cluster.Node;
import io.regent.jepsen.cluster.Probe;
import io.regent.jepsen.history.Keyword;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.Random;

/**
 * {@code leader}: hits the current Raft leader (asked with {@code status}): {@code kill -9}, {@code
 * SIGSTOP}, or (with namespaces) isolation from every other node, chosen at random. Value: {@code
 * [:kill "n2"]}, {@code [:pause "n2"]} or {@code [:isolate "n2"]}; nil if no leader among the nodes
 * was known (e.g. the single-writer target).
 */
final class LeaderNemesis implements Nemesis {
  private final Cluster cluster;
  private Node target;
  private String action;

  LeaderNemesis(Cluster cluster) {
    this.cluster = cluster;
  }

  @Override
  public String name() {
    return "leader";
  }

  @Override
  public Object start(Random random) {
    Optional<Node> leader = Probe.raftLeaderNode(cluster);
    if (leader.isEmpty()) {
      return null;
    }
    target = leader.get();
    int choices = cluster.netns().isPresent() ? 3 : 2;
    action = List.of("kill", "pause", "isolate").get(random.nextInt(choices));
    switch (action) {
      case "kill" -> target.kill();
      case "pause" -> target.pause();
      default -> {
        Netns netns = cluster.netns().orElseThrow();
        int t = Integer.parseInt(target.id().substring(1));
        for (Node other : cluster.nodes()) {
          if (other != target) {
            netns.cut(t, Integer.parseInt(other.id().substring(1)));
          }
        }
      }
    }
    return List.of(Keyword.of(action), target.id());
  }

  @Override
  public Object stop() throws IOException {
    if (target == null) {
      return null;
    }
    Object value = List.of(Keyword.of(action), target.id());
    if (action.equals("isolate")) {
      cluster.netns().ifPresent(Netns::healAll);
    } else {
      target.heal();
    }
    target = null;
    return value;
  }
}
