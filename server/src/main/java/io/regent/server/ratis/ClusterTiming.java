package io.regent.server.ratis;

import io.regent.server.confirm.LeadershipLease;
import io.regent.statemachine.proto.MemberTiming;
import io.regent.statemachine.replica.ReplicaView;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The voters' timing for the leadership lease (docs/architecture.md §8.1): the smallest minimum election timeout
 * among the current voters, from the timing each published into the replicated state ({@link TimingPublisher}),
 * this node's own effective timing included. A voter that published nothing, or runs without the pre-vote, gives
 * no lease: its clock is one of those that must refuse votes, and nobody knows it.
 */
public final class ClusterTiming implements LeadershipLease.VoterTiming {
  private final String self;
  private final RaftTiming own;
  private final Supplier<Set<String>> voters;
  private final ReplicaView replica;

  /**
   * @param self this node's id
   * @param own this node's effective timing
   * @param voters ids of the voters this node knows now ({@link LocalDivision#voterIds})
   * @param replica this node's replicated state, which holds the published timings
   */
  public ClusterTiming(String self, RaftTiming own, Supplier<Set<String>> voters, ReplicaView replica) {
    this.self = self;
    this.own = own;
    this.voters = voters;
    this.replica = replica;
  }

  @Override
  public long minElectionTimeoutMs() {
    Set<String> ids = voters.get();
    if (ids.isEmpty()) {
      return -1;
    }
    Map<String, MemberTiming> published = replica.read(txn -> txn.memberTimings());
    long min = Long.MAX_VALUE;
    for (String id : ids) {
      MemberTiming t = published.get(id);
      if (id.equals(self)) { // its own effective timing is known; a larger one it published before is not used
        min = Math.min(min, t == null ? own.minElectionTimeoutMs()
            : Math.min(t.getMinElectionTimeoutMs(), own.minElectionTimeoutMs()));
        if (!own.preVote()) {
          return -1;
        }
        continue;
      }
      if (t == null || !t.getPreVote()) {
        return -1;
      }
      min = Math.min(min, t.getMinElectionTimeoutMs());
    }
    return min;
  }
}
