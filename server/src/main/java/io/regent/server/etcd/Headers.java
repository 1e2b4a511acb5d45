package io.regent.server.etcd;

import io.etcd.jetcd.api.ResponseHeader;
import io.regent.server.membership.RaftLeader;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * etcd's {@code ResponseHeader} for Regent's answers: {@code revision} is the log index the answer stands on
 * (the fencing token of a grant: docs/migrating.md maps etcd's revisions onto log indexes), {@code raft_term}
 * the term this node knows, {@code member_id} a number derived from the node id (etcd's member ids are numbers,
 * Regent's are names), {@code cluster_id} 0.
 */
final class Headers {
  private final Supplier<RaftLeader> leader;

  Headers(Supplier<RaftLeader> leader) {
    this.leader = leader;
  }

  /** A header whose revision is {@code revision} (0 when the answer stands on no particular index). */
  ResponseHeader at(long revision) {
    ResponseHeader.Builder b = ResponseHeader.newBuilder().setRevision(revision);
    RaftLeader l = leader.get();
    if (l != null) {
      b.setRaftTerm(l.term()).setMemberId(memberId(l.node()));
    }
    return b.build();
  }

  /** A stable 64-bit id for node {@code node}: the leading bits of its name-based UUID (RFC 4122 version 3). */
  static long memberId(String node) {
    return UUID.nameUUIDFromBytes(node.getBytes(StandardCharsets.UTF_8)).getMostSignificantBits();
  }
}
