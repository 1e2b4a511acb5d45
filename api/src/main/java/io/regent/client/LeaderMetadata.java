package io.regent.client;

import io.grpc.Metadata;

/**
 * The response metadata with which every reply of a Regent node's public API names the Raft leader, as etcd's
 * {@code ResponseHeader} names the member and the term (docs/api.md, "Leader metadata"). A node sends them in
 * the response headers, or in the trailers of a reply that has no headers (an error, a follower's refusal
 * included). Every value is ASCII; a key whose value the node does not know is left out.
 *
 * <p>The term orders the hints: within one term Raft has at most one leader, so a hint of a lower term than one
 * already seen is stale (a follower cut off from the new leader), and a client keeps the highest.
 */
public final class LeaderMetadata {
  /** Member id of the node that answered, e.g. {@code n1}. Always sent by a node running Raft. */
  public static final Metadata.Key<String> NODE = key("regent-node");
  /** Raft term the answering node is in, a decimal number. Always sent by a node running Raft. */
  public static final Metadata.Key<String> TERM = key("regent-term");
  /** Member id of the Raft leader the answering node knows in that term; absent during an election. */
  public static final Metadata.Key<String> LEADER_ID = key("regent-leader-id");
  /**
   * Public API address ({@code host:port}) that the leader published in the replicated member table; absent
   * when the leader is unknown or has not published it yet (a node just started).
   */
  public static final Metadata.Key<String> LEADER = key("regent-leader");

  /**
   * The applied index of the node that answered, a decimal number, at the moment it answered: a client keeps the
   * highest it has seen, for {@link #SEEN_INDEX}.
   */
  public static final Metadata.Key<String> APPLIED_INDEX = key("regent-applied-index");
  /**
   * Request metadata of a re-sent mutating call: the highest applied index the client had seen before it first sent
   * the request, a decimal number. A node refuses the re-send (FAILED_PRECONDITION) when its request id has no
   * record while a record of a request applied after that index may have been pruned (docs/api.md "Request ids").
   */
  public static final Metadata.Key<String> SEEN_INDEX = key("regent-seen-index");

  private LeaderMetadata() {
  }

  private static Metadata.Key<String> key(String name) {
    return Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER);
  }
}
