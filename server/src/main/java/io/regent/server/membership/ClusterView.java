package io.regent.server.membership;

import io.regent.api.v1.StatusResponse;
import java.util.Map;

/** This node's view of its cluster for {@code Cluster.Status}: members, leader, term, indexes. */
@FunctionalInterface
public interface ClusterView {
  /** The current status as this node sees it. */
  StatusResponse status();

  /**
   * The Raft leader and term as this node knows them now, for the {@link LeaderHeaders} of every reply: it must
   * be cheap (no disk read, no lock held for long). Null when the node runs no Raft (the single writer) or its
   * Raft server is not up; the default.
   */
  default RaftLeader raftLeader() {
    return null;
  }

  /**
   * How long ago this node last heard from each other member, ms, as its Raft server measures it: the leader
   * reports every follower (time since the last append or heartbeat answered), a follower reports its leader;
   * empty when unknown (no leader, no Raft). For the console's health column; cheap, no disk read.
   */
  default Map<String, Long> lastContactMs() {
    return Map.of();
  }

  /**
   * Each follower's lag behind this node, by id, while this node is the Raft leader; empty otherwise (only the
   * leader knows match indexes) and the default. Each call is also a sample of the lag tracker.
   */
  default Map<String, FollowerLag> followerLag() {
    return Map.of();
  }

  /** How the cluster's membership changes; {@link Membership#FIXED} unless the node runs Raft. */
  default Membership membership() {
    return Membership.FIXED;
  }
}
