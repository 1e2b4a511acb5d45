package io.regent.server.api;

/**
 * The leader as this node's replies name it at one moment ({@link LeaderHeaders}): what a client routes by.
 * Two values differ when a client that heard the first should be told again.
 *
 * @param leaderId member id of the Raft leader, or null (an election, or none heard of yet)
 * @param term this node's current Raft term
 * @param api the leader's published API address, or null (not published yet, or no leader)
 */
record NamedLeader(String leaderId, long term, String api) {
}
