package io.regent.server.api;

import io.regent.api.v1.StatusResponse;

/** This node's view of its cluster for {@code Cluster.Status}: members, leader, term, indexes. */
@FunctionalInterface
public interface ClusterView {
  /** The current status as this node sees it. */
  StatusResponse status();
}
