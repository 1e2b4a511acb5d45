package io.regent.server.api;

import io.regent.server.confirm.Confirmer;
import io.regent.server.membership.ClusterView;
import io.regent.server.replication.Proposer;
import io.regent.statemachine.replica.ReplicaView;

/**
 * What the API serves of one cell (docs/architecture.md §14, "Cells"): the cell's state on this node, where its
 * commands go, its leadership confirmations and its Raft view. A node without cells has one, cell 0's.
 *
 * @param cluster the cell's Raft view: Status, health and the leader the replies name
 * @param replica this node's replica of the cell: its state and events
 * @param proposer where the cell's client commands go (batched), or the single writer's local log
 * @param confirmer the cell's leadership confirmations
 */
public record CellBackend(ClusterView cluster, ReplicaView replica, Proposer proposer, Confirmer confirmer) {
}
