package io.regent.jepsen.cluster;

import io.grpc.StatusRuntimeException;
import io.regent.api.v1.StatusResponse;
import io.regent.client.RegentClient;
import io.regent.jepsen.client.Deadline;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Asks the nodes about the cluster: who the Raft leader is, and whether every node serves again. */
public final class Probe {
  private static final Duration CALL = Duration.ofSeconds(3);

  private Probe() {
  }

  /** The Raft leader's node, as {@link #raftLeader}, when it is one of {@code cluster}'s nodes. */
  public static Optional<Node> raftLeaderNode(Cluster cluster) {
    return raftLeader(cluster).flatMap(id -> cluster.nodes().stream().filter(n -> n.id().equals(id)).findFirst());
  }

  /** The Raft leader's node id as the first answering live node sees it, if any. */
  public static Optional<String> raftLeader(Cluster cluster) {
    for (Node n : cluster.nodes()) {
      if (!n.alive() || n.paused()) {
        continue;
      }
      try (RegentClient c = RegentClient.connect(List.of(n.endpoint()))) {
        StatusResponse s = Deadline.call(CALL, () -> c.cluster().status());
        if (!s.getLeader().isEmpty()) {
          return Optional.of(s.getLeader());
        }
      } catch (StatusRuntimeException e) {
        // try the next node
      }
    }
    return Optional.empty();
  }

  /**
   * Waits until every node runs, all agree on one Raft leader (skipped for single-writer) and a
   * linearizable read succeeds through each of them; gives up at once if a node has exited.
   *
   * @return empty when recovered, else what was still wrong when the time ran out
   */
  public static Optional<String> awaitHealthy(Cluster cluster, Duration timeout, boolean raft) {
    long end = System.nanoTime() + timeout.toNanos();
    String problem = "not checked";
    while (System.nanoTime() < end) {
      for (Node n : cluster.nodes()) {
        if (!n.alive() && n.exitCode() != null) {
          return Optional.of(n.id() + " exited with code " + n.exitCode() + " (see " + n.log().getFileName() + ")");
        }
      }
      problem = check(cluster, raft);
      if (problem == null) {
        return Optional.empty();
      }
      try {
        Thread.sleep(250);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.of("interrupted");
      }
    }
    return Optional.of(problem);
  }

  private static String check(Cluster cluster, boolean raft) {
    Set<String> leaders = new HashSet<>();
    for (Node n : cluster.nodes()) {
      if (!n.alive()) {
        return n.id() + " is not running" + (n.exitCode() == null ? "" : " (exit " + n.exitCode() + ")");
      }
      try (RegentClient c = RegentClient.connect(List.of(n.endpoint()))) {
        if (raft) {
          StatusResponse s = Deadline.call(CALL, () -> c.cluster().status());
          if (s.getLeader().isEmpty()) {
            return n.id() + " knows no Raft leader";
          }
          leaders.add(s.getLeader());
        }
        Deadline.call(CALL, () -> c.elections().leader("jepsen-probe"));
      } catch (StatusRuntimeException e) {
        return n.id() + " answers " + e.getStatus().getCode() + ": " + e.getStatus().getDescription();
      }
    }
    if (leaders.size() > 1) {
      return "nodes disagree on the Raft leader: " + leaders;
    }
    return null;
  }
}
