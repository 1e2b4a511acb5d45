package io.regent.server.membership;

/**
 * The Raft leader as one node knows it at one moment.
 *
 * @param node this node's member id
 * @param leader member id of the leader this node knows in {@code term}, or null (an election, or no leader heard
 *     of yet)
 * @param term this node's current Raft term
 */
public record RaftLeader(String node, String leader, long term) {
}
