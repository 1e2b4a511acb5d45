package io.regent.server.membership;

import io.grpc.Status;
import io.regent.api.v1.Member;
import io.regent.api.v1.MemberListResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Membership changes of the cluster behind {@code regent.v1.Cluster} (see the proto for the contract). Futures
 * fail with a {@link io.grpc.StatusRuntimeException} carrying the status the caller gets; arguments reach
 * these methods already checked for form by {@link io.regent.client.MemberArgs}.
 */
public interface Membership {
  /** Every member, read after a leadership confirmation, and the Raft leader's id ("" when unknown). */
  CompletableFuture<MemberListResponse> list();

  /** Adds a learner with these addresses ({@code host:port}); the members afterwards. */
  CompletableFuture<List<Member>> add(String id, String raftAddress, String apiAddress);

  /** Makes learner {@code id} a voter; the members afterwards. */
  CompletableFuture<List<Member>> promote(String id);

  /** Removes member {@code id}; the members afterwards. */
  CompletableFuture<List<Member>> remove(String id);

  /** Moves Raft leadership to voter {@code to}; the new leader's id. */
  CompletableFuture<String> transferLeadership(String to);

  /** A cluster whose membership cannot change (the single writer): every call fails FAILED_PRECONDITION. */
  Membership FIXED = new Membership() {
    @Override
    public CompletableFuture<MemberListResponse> list() {
      return refused();
    }

    @Override
    public CompletableFuture<List<Member>> add(String id, String raftAddress, String apiAddress) {
      return refused();
    }

    @Override
    public CompletableFuture<List<Member>> promote(String id) {
      return refused();
    }

    @Override
    public CompletableFuture<List<Member>> remove(String id) {
      return refused();
    }

    @Override
    public CompletableFuture<String> transferLeadership(String to) {
      return refused();
    }

    private <T> CompletableFuture<T> refused() {
      return CompletableFuture.failedFuture(Status.FAILED_PRECONDITION
          .withDescription("this server runs without Raft (single-writer mode): it has no members to manage")
          .asRuntimeException());
    }
  };
}
