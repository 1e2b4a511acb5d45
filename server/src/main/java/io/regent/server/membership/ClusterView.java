package io.regent.server.membership;

import io.regent.api.v1.StatusResponse;

/** This node's view of its cluster for {@code Cluster.Status}: members, leader, term, indexes. */
@FunctionalInterface
public interface ClusterView {
  /** The current status as this node sees it. */
  StatusResponse status();

  /** How the cluster's membership changes; {@link Membership#FIXED} unless the node runs Raft. */
  default Membership membership() {
    return Membership.FIXED;
  }
}
