package io.regent.server.api;

import com.google.protobuf.ByteString;
import io.regent.api.v1.LeaderKey;
import io.regent.server.limits.Admission;
import io.regent.server.limits.NameQuota;
import io.regent.server.limits.ServerLimits;
import io.regent.server.replication.Cleanups;
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
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Blocking campaigns, shared by elections and locks: propose a Campaign, then wait on this node's applied
 * events until the lease is elected or ends. A cancelled call withdraws its candidacy, and resigns when it
 * was elected meanwhile, so nobody holds a name without knowing it. Each campaign returns a future of its
 * {@link CampaignOutcome}; the service answers its call from it.
 */
final class Campaigns {
  private final Proposer proposer;
  private final EventHub hub;
  private final UnsafeLocalGrants unsafe;
  private final ServerLimits limits;
  private final LeaseGrants grants;
  private final NameQuota names;
  private final Executor executor;
  private final Attempts attempts;
  private final Cleanups cleanups;

  /**
   * @param unsafe the negative-control mode, or {@code null} (always, outside tests)
   * @param limits names and candidates limits, stamped on each Campaign entry and judged at apply
   * @param grants the lease rules a campaign with a TTL goes through
   * @param names names held per identity: a campaign of an identity at its limit is refused (§7.2)
   * @param executor where a waiting campaign is answered, off the apply thread (the node's blocking pool)
   * @param attempts names each call's attempt
   * @param cleanups runs a cancelled call's cleanup until it commits
   */
  Campaigns(Proposer proposer, EventHub hub, UnsafeLocalGrants unsafe, ServerLimits limits,
            LeaseGrants grants, NameQuota names, Executor executor, Attempts attempts, Cleanups cleanups) {
    this.attempts = attempts;
    this.cleanups = cleanups;
    this.proposer = proposer;
    this.hub = hub;
    this.unsafe = unsafe;
    this.limits = limits;
    this.grants = grants;
    this.names = names;
    this.executor = executor;
  }

  /**
   * Campaigns for {@code name} with a lease of {@code ttlMs} that the same log entry grants (an election in
   * two entries: this and a Resign that revokes, docs/architecture.md §4.4), and answers at once: elected, or queued
   * with the new lease, which the caller keeps alive and campaigns again with to wait. Never blocks, so a
   * cancelled call leaves at most a lease that expires unrenewed. Errors (thrown at once for bad input, else
   * the future's): INVALID_ARGUMENT (name, value, lock delay, TTL outside the range of Lease.Grant, or
   * {@code lease} set too), RESOURCE_EXHAUSTED ({@code --max-ttl}, the lease, names or candidates limits, the
   * identity's names, §7.2), UNAVAILABLE.
   *
   * @return the outcome: elected, the holder after the entry (or null), and the lease it granted
   */
  CompletableFuture<CampaignOutcome> campaignWithTtl(String name, long lease, long ttlMs, ByteString value,
                                                     long lockDelayMs, boolean noWait, RequestId id) {
    Validation.newName(name);
    Validation.value(value);
    Validation.lockDelay(lockDelayMs);
    if (lease != 0) {
      throw StatusCodes.invalid("set a lease (" + lease + ") or a ttl (" + ttlMs + " ms), not both");
    }
    grants.checkTtl(ttlMs);
    names.check(Admission.IDENTITY.get(), 1);
    return grants.propose(() -> proposer.propose(id.stamp(LogEntry.newBuilder().setCampaign(Campaign.newBuilder()
            .setName(name).setTtlMs(ttlMs).setMaxLeases(grants.maxLeases()).setValue(value)
            .setLockDelayMs(lockDelayMs).setNoWait(noWait).setMaxNames(limits.maxNames())
            .setMaxCandidates(limits.maxCandidates())))))
        .thenApply(r -> new CampaignOutcome(StatusCodes.check(r).getElected(), holder(r), r.getLeaseId()));
  }

  /**
   * Campaigns for {@code name} with {@code lease} (asking for {@code lockDelayMs} of lock-delay should its lease
   * expire while holding), and completes its outcome once elected (or at once with {@code noWait}, after
   * withdrawing). Errors (thrown at once for bad input, else the future's): INVALID_ARGUMENT (name, value, lease
   * id), NOT_FOUND (lease unknown or ended), RESOURCE_EXHAUSTED (a new name beyond {@code --max-names}, a
   * candidate beyond {@code --max-candidates}, or the caller's identity at {@code --max-names-per-identity}),
   * UNAVAILABLE.
   *
   * <p>Each call is an attempt of its own ({@link Attempts}): its Campaign records it on the candidacy, and the
   * cleanup of a cancelled call withdraws or resigns only while the candidacy or holder still bears it — a re-send
   * of the same campaign that reached another node meanwhile keeps what it won (docs/api.md "Attempts").
   *
   * @param onCancel registers what to run when the caller cancels the call
   *     ({@code ServerCallStreamObserver::setOnCancelHandler}); called before the Campaign is proposed
   * @return the outcome (no granted lease), or a cancelled future when the caller cancelled first: the
   *     first of the two wins, and a cancelled campaign withdraws (and resigns) once its entry has an outcome
   */
  CompletableFuture<CampaignOutcome> campaign(String name, long lease, ByteString value, long lockDelayMs,
                                              boolean noWait, Consumer<Runnable> onCancel) {
    Validation.newName(name);
    Validation.value(value);
    if (lease == 0) {
      throw StatusCodes.invalid("give a lease (the id of a live lease) or ttl_ms (above 0, for a lease of its own)");
    }
    Validation.lease(lease);
    Validation.lockDelay(lockDelayMs);
    names.check(Admission.IDENTITY.get(), 1);
    if (unsafe != null) {
      LeaderKey fake = unsafe.grant(name, lease, value);
      if (fake != null) {
        return CompletableFuture.completedFuture(new CampaignOutcome(true, fake, 0));
      }
    }
    String attempt = attempts.next();
    CampaignWaiter waiter = new CampaignWaiter(hub, name, lease, executor);
    // Completed once, by the first of the outcome and the cancel (which cancels it): the call's answered flag.
    CompletableFuture<CampaignOutcome> outcome = new CompletableFuture<>();
    CompletableFuture<Result> proposed = new CompletableFuture<>();
    onCancel.accept(() -> {
      waiter.close();
      if (outcome.cancel(false)) {
        // Only once the Campaign has an outcome: it may still be in flight on another pooled Ratis client, and a
        // Withdraw applied before it would do nothing, leaving a candidate (or holder) whose caller is gone.
        proposed.whenComplete((r, err) -> {
          if (err != null || r.getCode() == Code.OK) {
            giveUp(name, lease, attempt); // after a failure the Campaign may still apply: withdraw anyway
          }
        });
      }
    });
    proposer.propose(LogEntry.newBuilder().setCampaign(Campaign.newBuilder().setName(name).setLeaseId(lease)
        .setValue(value).setLockDelayMs(lockDelayMs).setNoWait(noWait).setMaxNames(limits.maxNames())
        .setMaxCandidates(limits.maxCandidates()).setAttempt(attempt))).whenComplete((r, err) -> {
          if (err != null) {
            proposed.completeExceptionally(err);
          } else {
            proposed.complete(r);
          }
        }).whenComplete((r, err) -> {
          if (err != null || r.getElected() || noWait || r.getCode() != Code.OK) {
            waiter.close();
            completeOnce(outcome, err, () -> new CampaignOutcome(StatusCodes.check(r).getElected(), holder(r), 0));
            return;
          }
          waiter.arm(r.getIndex());
          waiter.elected().whenComplete((h, e) -> {
            waiter.close();
            completeOnce(outcome, e, () -> new CampaignOutcome(true, LeaderKeys.leaderKey(name, h), 0));
          });
        });
    return outcome;
  }

  /**
   * Completes {@code outcome} with {@code err}, else with what {@code value} gives (its exception if it throws);
   * does nothing when it is already complete (cancelled by the caller).
   */
  private static void completeOnce(CompletableFuture<CampaignOutcome> outcome, Throwable err,
                                   Supplier<CampaignOutcome> value) {
    if (outcome.isDone()) {
      return;
    }
    if (err != null) {
      outcome.completeExceptionally(err);
      return;
    }
    try {
      outcome.complete(value.get());
    } catch (RuntimeException e) {
      outcome.completeExceptionally(e);
    }
  }

  /**
   * Withdraws the candidacy of {@code attempt}; resigns if the lease was elected before the withdrawal applied —
   * each only while the candidacy or holder still bears this attempt ({@link Attempts#cleanupAttempt}); again
   * until it commits ({@link Cleanups}).
   */
  private void giveUp(String name, long lease, String attempt) {
    String own = attempts.cleanupAttempt(attempt);
    cleanups.run("withdrawing lease " + lease + " from '" + name + "'", () -> proposer.propose(LogEntry.newBuilder()
            .setWithdraw(Withdraw.newBuilder().setName(name).setLeaseId(lease).setAttempt(own)))
        .thenCompose(r -> {
          if (r.getElected() && r.getName().getHolder().getLeaseId() == lease) {
            return proposer.propose(LogEntry.newBuilder().setResign(Resign.newBuilder().setName(name)
                .setToken(r.getName().getHolder().getToken()).setAttempt(own)));
          }
          return CompletableFuture.completedFuture(r);
        }));
  }

  private static LeaderKey holder(Result r) {
    NameRecord rec = r.getName();
    return rec.hasHolder() ? LeaderKeys.leaderKey(rec.getName(), rec.getHolder()) : null;
  }
}
