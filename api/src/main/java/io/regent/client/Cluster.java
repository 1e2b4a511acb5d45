package io.regent.client;

import io.regent.api.v1.ClusterGrpc;
import io.regent.api.v1.Member;
import io.regent.api.v1.MemberAddRequest;
import io.regent.api.v1.MemberListRequest;
import io.regent.api.v1.MemberListResponse;
import io.regent.api.v1.MemberPromoteRequest;
import io.regent.api.v1.MemberRemoveRequest;
import io.regent.api.v1.StatusRequest;
import io.regent.api.v1.StatusResponse;
import io.regent.api.v1.TransferLeadershipRequest;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The {@code regent.v1.Cluster} service of a {@link RegentClient} ({@link RegentClient#cluster()}): a node's
 * status, the member list, membership changes and leadership transfer. Which of these calls are re-sent after
 * a timeout is {@link Calls}'s rule (membership changes and transfers are not). Errors are
 * {@link io.grpc.StatusRuntimeException}s with the codes of docs/architecture.md §7. Thread-safe.
 */
public final class Cluster {
  /** Deadline of membership changes, ms: adding a member may wait for it to catch up. */
  public static final long MEMBER_CALL_TIMEOUT_MS = 90_000;

  private final Calls calls;

  Cluster(Calls calls) {
    this.calls = calls;
  }

  /** The answering node's view of the cluster (members, Raft leader, term, indexes), after a confirmation. */
  public StatusResponse status() {
    return status(false);
  }

  /**
   * The answering node's view of the cluster; with {@code serializable}, its own view without a leadership
   * confirmation (it answers even when cut off from the leader, and may be behind).
   */
  public StatusResponse status(boolean serializable) {
    long timeoutMs = calls.callTimeoutMs();
    // not routed to the leader: it asks the answering node for its own view
    return calls.call(timeoutMs, true, false, ch -> ClusterGrpc.newBlockingStub(ch)
        .withDeadlineAfter(timeoutMs, TimeUnit.MILLISECONDS)
        .status(StatusRequest.newBuilder().setSerializable(serializable).build()));
  }

  /** Every member (voters and learners) and the Raft leader, read after a leadership confirmation. */
  public MemberListResponse memberList() {
    return calls.call(ch -> ClusterGrpc.newBlockingStub(ch)
        .withDeadlineAfter(calls.callTimeoutMs(), TimeUnit.MILLISECONDS)
        .memberList(MemberListRequest.getDefaultInstance()));
  }

  /**
   * Adds a learner (it receives the log but does not vote) whose node must already run, started without peers.
   * ALREADY_EXISTS when the id or Raft address is a member's; INVALID_ARGUMENT for a malformed one.
   *
   * @return the members afterwards
   */
  public List<Member> memberAdd(String id, String raftAddress, String apiAddress) {
    return calls.callOnce(MEMBER_CALL_TIMEOUT_MS, ch -> ClusterGrpc.newBlockingStub(ch)
        .withDeadlineAfter(MEMBER_CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .memberAdd(MemberAddRequest.newBuilder().setId(id).setRaftAddress(raftAddress).setApiAddress(apiAddress)
            .build())).getMembersList();
  }

  /** Makes a learner a voter. NOT_FOUND when unknown, FAILED_PRECONDITION when already a voter. */
  public List<Member> memberPromote(String id) {
    return calls.callOnce(MEMBER_CALL_TIMEOUT_MS, ch -> ClusterGrpc.newBlockingStub(ch)
        .withDeadlineAfter(MEMBER_CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .memberPromote(MemberPromoteRequest.newBuilder().setId(id).build())).getMembersList();
  }

  /**
   * Removes a member. NOT_FOUND when unknown, FAILED_PRECONDITION for the last voter. The leader is removed after
   * its node has moved the leadership to another voter (docs/operations.md, "Shrink"): with the leadership lease a
   * node other than the leader's answers UNAVAILABLE, and the call moves on to the next endpoint (it starts at the
   * leader's).
   */
  public List<Member> memberRemove(String id) {
    return calls.callOnce(MEMBER_CALL_TIMEOUT_MS, ch -> ClusterGrpc.newBlockingStub(ch)
        .withDeadlineAfter(MEMBER_CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .memberRemove(MemberRemoveRequest.newBuilder().setId(id).build())).getMembersList();
  }

  /** Moves Raft leadership to voter {@code to}; returns the new leader's id. */
  public String transferLeadership(String to) {
    return calls.callOnce(MEMBER_CALL_TIMEOUT_MS, ch -> ClusterGrpc.newBlockingStub(ch)
        .withDeadlineAfter(MEMBER_CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .transferLeadership(TransferLeadershipRequest.newBuilder().setTo(to).build())).getLeader();
  }
}
