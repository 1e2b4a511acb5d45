package io.regent.server.ratis;

import org.apache.ratis.grpc.server.GrpcLogAppender;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.leader.FollowerInfo;
import org.apache.ratis.server.leader.LeaderState;
import org.apache.ratis.server.raftlog.RaftLogIOException;
import org.apache.ratis.util.TimeDuration;
import org.apache.ratis.util.Timestamp;

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
 * <p>The push waits {@link #PUSH_DELAY_NANOS} for an entry that would carry the commit index anyway (a client's
 * next write usually comes sooner), so that steady writes cost no extra message: pushing at once made a lone
 * client's calls 7-12 % slower. At most one push per commit index per follower. A push does not count as an append
 * for Ratis's minimum wait between two appends ({@code raft.server.log.appender.wait-time.min}): that wait batches
 * entries, and a push carries none. Runs on the appender's own thread, as Ratis calls it.
 */
final class CommitPushAppender extends GrpcLogAppender {
  /**
   * How long a commit index waits for an entry to carry it before it is pushed alone, ns: a follower read or watch
   * at idle waits at most about this much plus a round trip (instead of up to the heartbeat interval).
   */
  static final long PUSH_DELAY_NANOS = 5_000_000;

  /** When the commit index waiting to be pushed goes alone (System.nanoTime), or 0 when none waits. */
  private long pushDue;
  /** The highest commit index sent to this follower so far. */
  private long pushedCommit = -1;
  /** Whether the request last built is a push. */
  private boolean pushing;
  /** When the last request other than a push went to this follower, while pushes followed it; else null. */
  private Timestamp beforePushes;
  /** What the minimum wait counts from for the request last built: null for Ratis's rule (its last send). */
  private Timestamp waitFrom;

  CommitPushAppender(RaftServer.Division server, LeaderState leaderState, FollowerInfo follower) {
    super(server, leaderState, follower);
  }

  @Override
  public AppendEntriesRequestProto newAppendEntriesRequest(long callId, boolean heartbeat)
      throws RaftLogIOException {
    Timestamp lastSend = getFollower().getLastRpcSendTime();
    AppendEntriesRequestProto request = super.newAppendEntriesRequest(callId, heartbeat);
    if (request != null) {
      pushedCommit = Math.max(pushedCommit, request.getLeaderCommit());
      pushDue = 0;
      pushing = false;
      waitFrom = beforePushes;
      beforePushes = null;
      return request;
    }
    long committed = getRaftLog().getLastCommittedIndex();
    if (committed <= pushedCommit || committed <= getFollower().getCommitIndex() || hasPendingDataRequests()) {
      // nothing to push; or entries still unanswered: their answer moves the commit index and wakes this appender
      // again, and an empty append now would carry no commit index (Ratis gives it no previous entry then)
      pushDue = 0;
      return null;
    }
    long now = System.nanoTime();
    if (pushDue == 0) {
      pushDue = now + PUSH_DELAY_NANOS;
    }
    if (now - pushDue < 0) {
      return null; // an entry may yet carry it; getWaitTimeMs wakes this appender by then
    }
    pushDue = 0;
    // no entry came: an empty append (Ratis's heartbeat request) carries the commit index
    AppendEntriesRequestProto push = super.newAppendEntriesRequest(callId, true);
    pushedCommit = committed;
    pushing = true;
    if (beforePushes == null) {
      beforePushes = lastSend;
    }
    return push;
  }

  /** Ratis's wait before the appender looks again, ms, cut short to when a waiting commit index is due. */
  @Override
  public long getWaitTimeMs() {
    long wait = super.getWaitTimeMs();
    if (pushDue == 0) {
      return wait;
    }
    long dueMs = Math.max(0, (pushDue - System.nanoTime() + 999_999) / 1_000_000);
    return Math.min(wait, dueMs);
  }

  @Override
  protected TimeDuration getRemainingWaitTime() {
    if (pushing) {
      return TimeDuration.ZERO;
    }
    return waitFrom == null ? super.getRemainingWaitTime()
        : getWaitTimeMin().add(waitFrom.elapsedTime().negate());
  }
}
