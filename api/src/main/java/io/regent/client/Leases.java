package io.regent.client;

import com.google.common.util.concurrent.ListenableFuture;
import io.grpc.Deadline;
import io.grpc.ManagedChannel;
import io.regent.api.v1.LeaseGrantRequest;
import io.regent.api.v1.LeaseGrpc;
import io.regent.api.v1.LeaseInfo;
import io.regent.api.v1.LeaseKeepAliveManyRequest;
import io.regent.api.v1.LeaseKeepAliveManyResponse;
import io.regent.api.v1.LeaseKeepAliveRequest;
import io.regent.api.v1.LeaseKeepAliveResponse;
import io.regent.api.v1.LeaseLeasesRequest;
import io.regent.api.v1.LeaseRevokeRequest;
import io.regent.api.v1.LeaseTimeToLiveRequest;
import io.regent.api.v1.LeaseTimeToLiveResponse;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

/**
 * The {@code regent.v1.Lease} service of a {@link RegentClient} ({@link RegentClient#leases()}): grant, keep
 * alive, revoke and read leases. Which of these calls are re-sent after a timeout is {@link Calls}'s rule.
 * Errors are {@link io.grpc.StatusRuntimeException}s with the codes of docs/architecture.md §7. Thread-safe.
 */
public final class Leases {
  private final Calls calls;
  /** This client's keepalive streams, or null when it sends unary keepalives. */
  private final KeepAliveStreams keepAliveStreams;

  /** @param streamKeepAlives {@link RegentClientBuilder#streamKeepAlives} */
  Leases(Calls calls, boolean streamKeepAlives) {
    this.calls = calls;
    this.keepAliveStreams = streamKeepAlives ? new KeepAliveStreams(calls.timer()) : null;
  }

  /**
   * Grants a lease. Re-sent after UNAVAILABLE and DEADLINE_EXCEEDED with one request id, so a grant that was
   * applied before its answer was lost is answered with that lease rather than granting a second one
   * (docs/api.md "Request ids").
   *
   * @param ttlMs TTL in ms, within [1.5 x max election timeout, 1 h]
   * @return the lease id (the log index of the grant). INVALID_ARGUMENT for a TTL out of range,
   *     RESOURCE_EXHAUSTED above the server's lease limits
   */
  public long grant(long ttlMs) {
    return grant(ttlMs, "");
  }

  /**
   * Grants a lease in the cell of {@code tenant}'s names, as {@link #grant(long)}: on a cluster of several cells a
   * lease holds names of its own cell only (docs/architecture.md §14). A name will do as well as a tenant
   * ({@code payments/leader} and {@code payments} name one cell); empty: cell 0.
   */
  public long grant(long ttlMs, String tenant) {
    LeaseGrantRequest req = LeaseGrantRequest.newBuilder().setTtlMs(ttlMs).setTenant(tenant)
        .setRequestId(RequestIds.next()).build();
    return calls.call(ch -> LeaseGrpc.newBlockingStub(ch)
        .withDeadlineAfter(calls.callTimeoutMs(), TimeUnit.MILLISECONDS).grant(req)).getId();
  }

  /**
   * Renews a lease, on the endpoint's keepalive stream unless {@link RegentClientBuilder#streamKeepAlives}
   * turned streams off; returns its TTL in ms. NOT_FOUND once the lease is gone or its expiry is decided.
   */
  public long keepAlive(long leaseId, long timeoutMs) {
    return keepAliveAnswer(leaseId, timeoutMs).getTtlMs();
  }

  /** {@link #keepAlive} with the whole answer: the TTL and the answering node's clock reading ({@link ClockRate}). */
  LeaseKeepAliveResponse keepAliveAnswer(long leaseId, long timeoutMs) {
    return calls.hedged(timeoutMs, keepAliveRpc(leaseId));
  }

  /**
   * {@link #keepAlive} without blocking, for a holder of many leases (as a load generator): the future
   * completes with the TTL in ms, or fails with the {@link io.grpc.StatusRuntimeException} that
   * {@link #keepAlive} would throw. Cancelling it cancels the attempts still out.
   */
  public CompletableFuture<Long> keepAliveAsync(long leaseId, long timeoutMs) {
    return calls.hedgedAsync(timeoutMs, keepAliveRpc(leaseId)).thenApply(r -> r.getTtlMs());
  }

  private BiFunction<ManagedChannel, Deadline, ListenableFuture<LeaseKeepAliveResponse>> keepAliveRpc(long leaseId) {
    if (keepAliveStreams != null) {
      return (ch, d) -> keepAliveStreams.keepAlive(ch, leaseId, d);
    }
    LeaseKeepAliveRequest req = LeaseKeepAliveRequest.newBuilder().setId(leaseId).build();
    return (ch, d) -> LeaseGrpc.newFutureStub(ch).withDeadline(d).keepAlive(req);
  }

  /**
   * Renews up to 10 000 leases in one call (one confirmation round for all of them).
   *
   * @return lease id to its TTL in ms, or 0 when the lease is not found or is expiring
   * @throws io.grpc.StatusRuntimeException INVALID_ARGUMENT for no id or more than 10 000 ids; UNAVAILABLE when
   *     no ready leader confirmed the round (retry)
   */
  public Map<Long, Long> keepAliveMany(Collection<Long> leaseIds, long timeoutMs) {
    LeaseKeepAliveManyRequest req = LeaseKeepAliveManyRequest.newBuilder().addAllIds(leaseIds).build();
    LeaseKeepAliveManyResponse r = calls.hedged(timeoutMs,
        (ch, d) -> LeaseGrpc.newFutureStub(ch).withDeadline(d).keepAliveMany(req));
    Map<Long, Long> out = new LinkedHashMap<>();
    r.getResultsList().forEach(x -> out.put(x.getId(), x.getTtlMs()));
    return out;
  }

  /**
   * Revokes a lease, freeing every name it holds. NOT_FOUND when unknown (a re-send of this call after a lost
   * answer gets the first answer, by its request id).
   */
  public void revoke(long leaseId) {
    LeaseRevokeRequest req = LeaseRevokeRequest.newBuilder().setId(leaseId).setRequestId(RequestIds.next()).build();
    calls.call(ch -> LeaseGrpc.newBlockingStub(ch).withDeadlineAfter(calls.callTimeoutMs(), TimeUnit.MILLISECONDS)
        .revoke(req));
  }

  /** TTL and remaining time (as measured by the leader) of a lease. NOT_FOUND when unknown. */
  public LeaseTimeToLiveResponse timeToLive(long leaseId) {
    return calls.call(ch -> LeaseGrpc.newBlockingStub(ch)
        .withDeadlineAfter(calls.callTimeoutMs(), TimeUnit.MILLISECONDS)
        .timeToLive(LeaseTimeToLiveRequest.newBuilder().setId(leaseId).build()));
  }

  /** Every live lease, read linearizably ({@code Lease/Leases}). */
  public List<LeaseInfo> list() {
    return calls.call(ch -> LeaseGrpc.newBlockingStub(ch)
        .withDeadlineAfter(calls.callTimeoutMs(), TimeUnit.MILLISECONDS)
        .leases(LeaseLeasesRequest.getDefaultInstance())).getLeasesList();
  }
}
