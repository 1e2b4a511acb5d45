package io.regent.server.ratis;

import io.regent.server.replication.Proposer;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.MemberTiming;
import io.regent.statemachine.replica.ReplicaView;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.ratis.server.RaftServer;

/**
 * Publishes this node's effective Raft timing ({@link RaftTiming}) into the replicated state once it is a member,
 * so that every leader bounds its leadership lease by the smallest minimum election timeout among the voters
 * ({@link ClusterTiming}; docs/architecture.md §8.1). Checks until the replicated record equals this node's
 * timing, then stops; a restart with other timing publishes again.
 */
public final class TimingPublisher implements AutoCloseable {
  private final MemberRecordPublisher publisher;

  private TimingPublisher(MemberRecordPublisher publisher) {
    this.publisher = publisher;
  }

  /**
   * Starts publishing.
   *
   * @param timing this node's effective timing
   * @param maxEntryVersion the highest log-entry version this node applies, published with it ({@link VoterFormats})
   * @param timers the node's scheduler, which runs the checks
   */
  public static TimingPublisher start(CellDivision cell, ReplicaView replica, Proposer proposer, RaftTiming timing,
                                      int maxEntryVersion, ScheduledExecutorService timers) {
    String id = cell.serverId().toString();
    MemberTiming entry = timing.entry(id, maxEntryVersion);
    return new TimingPublisher(MemberRecordPublisher.start(cell, replica, proposer,
        r -> entry.equals(r.read(txn -> txn.memberTimings()).get(id)),
        LogEntry.newBuilder().setMemberTiming(entry),
        "Raft timing of member " + id + " (minimum election timeout " + timing.minElectionTimeoutMs()
            + " ms, pre-vote " + timing.preVote() + ")", timers));
  }

  @Override
  public void close() {
    publisher.close();
  }
}
