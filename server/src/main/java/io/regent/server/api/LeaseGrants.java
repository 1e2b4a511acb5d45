package io.regent.server.api;

import io.grpc.Status;
import io.regent.server.limits.Admission;
import io.regent.server.limits.ConnectionLimiter;
import io.regent.server.limits.LeaseQuota;
import io.regent.server.limits.NameQuota;
import io.regent.server.limits.ServerLimits;
import io.regent.statemachine.limits.Limits;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.replica.ReplicaView;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * The rules every entry that grants a lease goes through (a Grant, or a Campaign with a TTL): the TTL's range,
 * this node's {@code --max-ttl}, and the per-connection and per-identity lease quotas; a granted lease's names count
 * against its identity from then on (docs/architecture.md §7, §7.2).
 */
final class LeaseGrants {
  private final long minTtlMs;
  private final ServerLimits limits;
  private final LeaseQuota quota;
  private final LeaseQuota identityQuota;
  private final NameQuota names;
  private final ReplicaView state;
  private final Executor countPool;

  /**
   * @param minTtlMs smallest TTL a lease may have, ms (1.5 x the maximum election timeout)
   * @param limits the largest TTL this node grants and the node-wide lease limit stamped on each entry
   * @param quota live leases per connection
   * @param identityQuota live leases per identity ({@link Admission#leaseQuota()})
   * @param names names held per identity ({@link Admission#nameQuota()}), told of each lease granted
   * @param state the local replica, where a granted lease's names are read
   * @param countPool where a granted lease's names are counted before its answer (the node's blocking pool)
   */
  LeaseGrants(long minTtlMs, ServerLimits limits, LeaseQuota quota, LeaseQuota identityQuota, NameQuota names,
              ReplicaView state, Executor countPool) {
    this.minTtlMs = minTtlMs;
    this.limits = limits;
    this.quota = quota;
    this.identityQuota = identityQuota;
    this.names = names;
    this.state = state;
    this.countPool = countPool;
  }

  /**
   * Returns {@code ttlMs} when this node may grant it: INVALID_ARGUMENT outside [min TTL, 3 600 000] ms,
   * RESOURCE_EXHAUSTED above {@code --max-ttl}.
   */
  long checkTtl(long ttlMs) {
    if (ttlMs < minTtlMs || ttlMs > Limits.MAX_TTL_MS) {
      throw StatusCodes.invalid("ttl " + ttlMs + " ms outside [" + minTtlMs + ", " + Limits.MAX_TTL_MS
          + "] (minimum = 1.5 x max election timeout)");
    }
    if (ttlMs > limits.maxTtlMs()) {
      throw Status.RESOURCE_EXHAUSTED.withDescription("ttl " + ttlMs + " ms above this server's limit (--max-ttl "
          + limits.maxTtlMs() + " ms)").asRuntimeException();
    }
    return ttlMs;
  }

  /** The node-wide lease limit to stamp on the entry (judged at apply; 0: none). */
  long maxLeases() {
    return limits.maxLeases();
  }

  /**
   * Proposes a granting entry against the calling connection's and identity's quotas (RESOURCE_EXHAUSTED when
   * one is full). Must run on the call's thread (the connection and identity are read from the gRPC context). The
   * lease counts against both when the result is OK and names a lease ({@code Result.lease_id > 0}), and its names
   * against the identity's names quota before the answer ({@link NameQuota#granted}, on the blocking pool).
   */
  CompletableFuture<Result> propose(Supplier<CompletableFuture<Result>> grant) {
    String connection = ConnectionLimiter.CONNECTION.get();
    String identity = Admission.IDENTITY.get();
    quota.reserve(connection);
    try {
      identityQuota.reserve(identity);
    } catch (RuntimeException e) {
      quota.released(connection);
      throw e;
    }
    CompletableFuture<Result> f;
    try {
      f = grant.get();
    } catch (RuntimeException e) {
      quota.released(connection);
      identityQuota.released(identity);
      throw e;
    }
    CompletableFuture<Result> answer = new CompletableFuture<>();
    f.whenComplete((r, err) -> {
      if (err == null && r.getCode() == Code.OK && r.getLeaseId() > 0) {
        quota.granted(connection, r.getLeaseId());
        identityQuota.granted(identity, r.getLeaseId());
        countNames(identity, r.getLeaseId(), () -> answer.complete(r));
        return;
      }
      quota.released(connection);
      identityQuota.released(identity);
      if (err != null) {
        answer.completeExceptionally(err);
      } else {
        answer.complete(r);
      }
    });
    return answer;
  }

  /**
   * Counts the names of a granted lease on the blocking pool, then answers: the apply thread that completed the
   * grant never waits on the LMDB read, and the identity's next call, sent after this answer, finds the names counted
   * (a campaign with a TTL elects in its granting entry; answered first, a quick next campaign passed the limit).
   */
  private void countNames(String identity, long leaseId, Runnable answer) {
    Runnable count = () -> {
      try {
        names.granted(identity, leaseId, state);
      } finally {
        answer.run(); // a failed read (LMDB's readers full) leaves the lease uncounted, not the grant unanswered
      }
    };
    try {
      countPool.execute(count);
    } catch (RejectedExecutionException e) {
      count.run(); // a full pool: count here rather than let the lease's names go uncounted
    }
  }
}
