package io.regent.server.ratis;

import org.apache.ratis.grpc.server.GrpcLogAppender;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.leader.FollowerInfo;
import org.apache.ratis.server.leader.LeaderState;
import org.apache.ratis.server.raftlog.RaftLogIOException;

/**
 * Ratis's gRPC log appender, which also tells a follower at once that its entries are committed: when the
 * leader's commit index moves past what the follower last acknowledged and there is no entry to send, it sends
 * one empty AppendEntries carrying the new commit index, as etcd's leader broadcasts a commit (docs/ratis.md §9).
 *
 * <p>Why: Ratis 3.3.0's appender wakes when the commit index moves but sends nothing without an entry
 * ({@code LogAppenderBase.newAppendEntriesRequest} returns null), so a follower learns of a commit from the next
 * entry or the next heartbeat, half the minimum election timeout later (300 ms by default). Ratis's own remedy, a
 * log-metadata entry after each commit, is an extra log entry per write (Regent turns it off, docs/ratis.md §6).
 * Meanwhile a linearizable read at that follower waits for its replica to apply the leader's answer index, and
 * a watch there delivers the event late: a lone reader through a follower was answered ~300 ms every other read.
 *
 * <p>At most one such push per commit index per follower: the appender's wake-ups between the push and the
 * follower's reply send nothing more. Runs on the appender's own thread, as Ratis calls it.
 */
final class CommitPushAppender extends GrpcLogAppender {
  /** The highest commit index sent to this follower so far; appender thread only. */
  private long pushedCommit = -1;

  CommitPushAppender(RaftServer.Division server, LeaderState leaderState, FollowerInfo follower) {
    super(server, leaderState, follower);
  }

  @Override
  public AppendEntriesRequestProto newAppendEntriesRequest(long callId, boolean heartbeat)
      throws RaftLogIOException {
    AppendEntriesRequestProto request = super.newAppendEntriesRequest(callId, heartbeat);
    if (request != null) {
      pushedCommit = Math.max(pushedCommit, request.getLeaderCommit());
      return request;
    }
    long committed = getRaftLog().getLastCommittedIndex();
    if (committed <= pushedCommit || committed <= getFollower().getCommitIndex()) {
      return null;
    }
    // no entry to send: an empty append (Ratis's heartbeat request) carries the commit index
    AppendEntriesRequestProto push = super.newAppendEntriesRequest(callId, true);
    pushedCommit = Math.max(pushedCommit, push.getLeaderCommit());
    return push;
  }
}
