package io.regent.client;

import io.grpc.Context;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.GroupGrpc;
import io.regent.api.v1.GroupJoinRequest;
import io.regent.api.v1.GroupJoinResponse;
import io.regent.api.v1.GroupLeaveRequest;
import io.regent.api.v1.GroupReleaseRequest;
import io.regent.api.v1.GroupStatusRequest;
import io.regent.api.v1.GroupStatusResponse;
import io.regent.api.v1.GroupWatchRequest;
import io.regent.api.v1.GroupWatchResponse;
import io.regent.api.v1.PartitionToken;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Calls of the {@code regent.v1.Group} service (ownership groups, docs/ownership.md) over a
 * {@link RegentClient}'s endpoints. Errors are {@link io.grpc.StatusRuntimeException}s with the codes the
 * service documents. Thread-safe.
 */
public final class GroupClient {
  private final RegentClient client;

  /** Uses the endpoints (and the fail-over rule) of {@code client}, which the caller keeps and closes. */
  public GroupClient(RegentClient client) {
    this.client = client;
  }

  /**
   * Joins {@code group} as {@code member} with a new lease of {@code ttlMs}, creating the group with
   * {@code partitions} partitions (0: it must exist).
   */
  public GroupJoinResponse joinWithTtl(String group, String member, int partitions, long ttlMs) {
    return join(GroupJoinRequest.newBuilder().setGroup(group).setMember(member).setPartitions(partitions)
        .setTtlMs(ttlMs).setRequestId(RequestIds.next()).build());
  }

  /** Joins {@code group} as {@code member} held by the live lease {@code lease}. */
  public GroupJoinResponse join(String group, String member, int partitions, long lease) {
    return join(GroupJoinRequest.newBuilder().setGroup(group).setMember(member).setPartitions(partitions)
        .setLease(lease).setRequestId(RequestIds.next()).build());
  }

  /** Sends {@code req}, re-sent with its one request id: a join that applied is answered, not joined twice. */
  private GroupJoinResponse join(GroupJoinRequest req) {
    return client.call(ch -> GroupGrpc.newBlockingStub(ch)
        .withDeadlineAfter(RegentClient.CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS).join(req));
  }

  /** Leaves {@code group}: every partition of the member moves on at once. Returns the entry's index. */
  public long leave(String group, String member, long lease) {
    GroupLeaveRequest req = GroupLeaveRequest.newBuilder().setGroup(group).setMember(member).setLease(lease)
        .setRequestId(RequestIds.next()).build();
    return client.call(ch -> GroupGrpc.newBlockingStub(ch)
        .withDeadlineAfter(RegentClient.CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS).leave(req)).getIndex();
  }

  /**
   * Releases partitions (partition to the token it was granted with), all or nothing. Returns the index of
   * the entry that released them. FAILED_PRECONDITION for a stale token or a partition still assigned.
   */
  public long release(String group, Map<Integer, Long> tokens) {
    GroupReleaseRequest.Builder b = GroupReleaseRequest.newBuilder().setGroup(group).setRequestId(RequestIds.next());
    tokens.forEach((p, t) -> b.addPartitions(PartitionToken.newBuilder().setPartition(p).setToken(t)));
    return client.call(ch -> GroupGrpc.newBlockingStub(ch)
        .withDeadlineAfter(RegentClient.CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS).release(b.build())).getIndex();
  }

  /** The whole assignment (linearizable unless {@code serializable}). NOT_FOUND for an unknown group. */
  public GroupStatusResponse status(String group, boolean serializable) {
    return client.call(ch -> GroupGrpc.newBlockingStub(ch)
        .withDeadlineAfter(RegentClient.CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .status(GroupStatusRequest.newBuilder().setGroup(group).setSerializable(serializable).build()));
  }

  /**
   * Streams {@code member}'s assignment in {@code group}: each message its whole assignment as of its index,
   * starting after {@code afterIndex} (0: the current one). Returns what cancels the stream.
   */
  public Runnable watch(String group, String member, long afterIndex, StreamObserver<GroupWatchResponse> observer) {
    Context.CancellableContext ctx = Context.current().withCancellation();
    ctx.run(() -> GroupGrpc.newStub(client.currentChannel()).watch(GroupWatchRequest.newBuilder().setGroup(group)
        .setMember(member).setAfterIndex(afterIndex).build(), observer));
    return () -> ctx.cancel(null);
  }
}
