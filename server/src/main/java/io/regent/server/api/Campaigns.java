package io.regent.server.api;

import com.google.protobuf.ByteString;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.LeaderKey;
import io.regent.server.limits.Admission;
import io.regent.server.limits.NameQuota;
import io.regent.server.limits.ServerLimits;
import io.regent.server.replication.Proposer;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.Campaign;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.proto.Resign;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.proto.Withdraw;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Blocking campaigns, shared by elections and locks: propose a Campaign, then wait on this node's applied
 * events until the lease is elected or ends. A cancelled call withdraws its candidacy, and resigns when it
 * was elected meanwhile, so nobody holds a name without knowing it.
 */
final class Campaigns {
  private static final Logger LOG = LoggerFactory.getLogger(Campaigns.class);

  private final Proposer proposer;
  private final EventHub hub;
  private final UnsafeLocalGrants unsafe;
  private final ServerLimits limits;
  private final LeaseGrants grants;
  private final NameQuota names;
  private final Executor executor;

  /**
   * @param unsafe the negative-control mode, or {@code null} (always, outside tests)
   * @param limits names and candidates limits, stamped on each Campaign entry and judged at apply
   * @param grants the lease rules a campaign with a TTL goes through
   * @param names names held per identity: a campaign of an identity at its limit is refused (§7.2)
   * @param executor where a waiting campaign is answered, off the apply thread (the node's blocking pool)
   */
  Campaigns(Proposer proposer, EventHub hub, UnsafeLocalGrants unsafe, ServerLimits limits,
            LeaseGrants grants, NameQuota names, Executor executor) {
    this.proposer = proposer;
    this.hub = hub;
    this.unsafe = unsafe;
    this.limits = limits;
    this.grants = grants;
    this.names = names;
    this.executor = executor;
  }

  /** The answer to a campaign with a TTL: elected, the holder after it (or null), and the lease it granted. */
  interface OwnLeaseAnswer<R> {
    R of(boolean elected, LeaderKey holder, long grantedLease);
  }

  /**
   * Campaigns for {@code name} with a lease of {@code ttlMs} that the same log entry grants (an election in
   * two entries: this and a Resign that revokes, docs/architecture.md §4.4), and answers at once: elected, or queued
   * with the new lease, which the caller keeps alive and campaigns again with to wait. Never blocks, so a
   * cancelled call leaves at most a lease that expires unrenewed. Errors: INVALID_ARGUMENT (name, value, lock
   * delay, TTL outside the range of Lease.Grant, or {@code lease} set too), RESOURCE_EXHAUSTED ({@code --max-ttl},
   * the lease, names or candidates limits, the identity's names, §7.2), UNAVAILABLE.
   */
  <R> void campaignWithTtl(String name, long lease, long ttlMs, ByteString value, long lockDelayMs, boolean noWait,
                           StreamObserver<R> obs, OwnLeaseAnswer<R> answer) {
    Validation.name(name);
    Validation.value(value);
    Validation.lockDelay(lockDelayMs);
    if (lease != 0) {
      throw Statuses.invalid("set a lease (" + lease + ") or a ttl (" + ttlMs + " ms), not both");
    }
    grants.checkTtl(ttlMs);
    names.check(Admission.IDENTITY.get(), 1);
    Statuses.reply(grants.propose(() -> proposer.propose(LogEntry.newBuilder().setCampaign(Campaign.newBuilder()
            .setName(name).setTtlMs(ttlMs).setMaxLeases(grants.maxLeases()).setValue(value)
            .setLockDelayMs(lockDelayMs).setNoWait(noWait).setMaxNames(limits.maxNames())
            .setMaxCandidates(limits.maxCandidates())))),
        r -> answer.of(Statuses.check(r).getElected(), holder(r), r.getLeaseId()), obs);
  }

  /**
   * Campaigns for {@code name} with {@code lease} (asking for {@code lockDelayMs} of lock-delay should its lease
   * expire while holding) and answers {@code obs} with
   * {@code toResponse(elected, holder)} once elected (or at once with {@code noWait}, after withdrawing).
   * Errors: INVALID_ARGUMENT (name, value, lease id), NOT_FOUND (lease unknown or ended), RESOURCE_EXHAUSTED
   * (a new name beyond {@code --max-names}, a candidate beyond {@code --max-candidates}, or the caller's identity at
   * {@code --max-names-per-identity}), UNAVAILABLE.
   */
  <R> void campaign(String name, long lease, ByteString value, long lockDelayMs, boolean noWait,
                    ServerCallStreamObserver<R> obs, BiFunction<Boolean, LeaderKey, R> toResponse) {
    Validation.name(name);
    Validation.value(value);
    Validation.lease(lease);
    Validation.lockDelay(lockDelayMs);
    names.check(Admission.IDENTITY.get(), 1);
    if (unsafe != null) {
      LeaderKey fake = unsafe.grant(name, lease, value);
      if (fake != null) {
        obs.onNext(toResponse.apply(true, fake));
        obs.onCompleted();
        return;
      }
    }
    CampaignWaiter waiter = new CampaignWaiter(hub, name, lease, executor);
    AtomicBoolean answered = new AtomicBoolean();
    CompletableFuture<Result> proposed = new CompletableFuture<>();
    obs.setOnCancelHandler(() -> {
      waiter.close();
      if (answered.compareAndSet(false, true)) {
        // Only once the Campaign has an outcome: it may still be in flight on another pooled Ratis client, and a
        // Withdraw applied before it would do nothing, leaving a candidate (or holder) whose caller is gone.
        proposed.whenComplete((r, err) -> {
          if (err != null || r.getCode() == Code.OK) {
            giveUp(name, lease); // after a failure the Campaign may still apply: withdraw anyway
          }
        });
      }
    });
    proposer.propose(LogEntry.newBuilder().setCampaign(Campaign.newBuilder().setName(name).setLeaseId(lease)
        .setValue(value).setLockDelayMs(lockDelayMs).setNoWait(noWait).setMaxNames(limits.maxNames())
        .setMaxCandidates(limits.maxCandidates()))).whenComplete((r, err) -> {
          if (err != null) {
            proposed.completeExceptionally(err);
          } else {
            proposed.complete(r);
          }
        }).whenComplete((r, err) -> {
          if (err != null || r.getElected() || noWait || r.getCode() != Code.OK) {
            waiter.close();
            Statuses.answerOnce(obs, answered, err, () -> toResponse.apply(Statuses.check(r).getElected(), holder(r)));
            return;
          }
          waiter.arm(r.getIndex());
          waiter.elected().whenComplete((h, e) -> {
            waiter.close();
            Statuses.answerOnce(obs, answered, e, () -> toResponse.apply(true, Keys.leaderKey(name, h)));
          });
        });
  }

  /** Withdraws a candidacy; resigns if the lease was elected before the withdrawal applied. */
  private void giveUp(String name, long lease) {
    proposer.propose(LogEntry.newBuilder().setWithdraw(Withdraw.newBuilder().setName(name).setLeaseId(lease)))
        .thenCompose(r -> {
          if (r.getElected() && r.getName().getHolder().getLeaseId() == lease) {
            return proposer.propose(LogEntry.newBuilder().setResign(Resign.newBuilder().setName(name)
                .setToken(r.getName().getHolder().getToken())));
          }
          return CompletableFuture.completedFuture(r);
        })
        .whenComplete((r, err) -> {
          if (err != null) {
            LOG.warn("withdrawing lease {} from '{}' failed: {}", lease, name, err.getMessage());
          }
        });
  }

  private static LeaderKey holder(Result r) {
    NameRecord rec = r.getName();
    return rec.hasHolder() ? Keys.leaderKey(rec.getName(), rec.getHolder()) : null;
  }
}
