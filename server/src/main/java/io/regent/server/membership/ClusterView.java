package io.regent.server.membership;

import io.regent.api.v1.StatusResponse;

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

  /** How the cluster's membership changes; {@link Membership#FIXED} unless the node runs Raft. */
  default Membership membership() {
    return Membership.FIXED;
  }
}
