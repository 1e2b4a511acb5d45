package io.regent.server.api;

import io.grpc.stub.ServerCallStreamObserver;
import io.regent.api.v1.CampaignAllRequest;
import io.regent.api.v1.CampaignAllResponse;
import io.regent.api.v1.LeaderKey;
import io.regent.server.limits.Admission;
import io.regent.server.limits.NameQuota;
import io.regent.server.limits.ServerLimits;
import io.regent.server.replication.Cleanups;
import io.regent.server.replication.Proposer;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.CampaignAll;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Resign;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.proto.Withdraw;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A blocking CampaignAll (docs/ownership.md): propose the entry, then wait on this node's applied events
 * until the lease takes the names (all in one apply: the first name's election stands for all) or its
 * lease ends. A cancelled call withdraws the candidacy, and resigns every name when it was elected
 * meanwhile, so nobody holds names without knowing it.
 */
final class CampaignAllCall {
  private final Proposer proposer;
  private final EventHub hub;
  private final ServerLimits limits;
  private final NameQuota names;
  private final Executor executor;
  private final Attempts attempts;
  private final Cleanups cleanups;

  /**
   * @param limits the names limit, stamped on each CampaignAll entry and judged at apply
   * @param names names held per identity: a campaign that would take an identity past its limit is refused (§7.2)
   * @param executor where a waiting campaign is answered, off the apply thread (the node's blocking pool)
   * @param attempts names each call's attempt: its cleanup acts only while the candidacy or holders bear it
   *     (docs/api.md "Attempts")
   * @param cleanups runs a cancelled call's cleanup until it commits
   */
  CampaignAllCall(Proposer proposer, EventHub hub, ServerLimits limits, NameQuota names, Executor executor,
                  Attempts attempts, Cleanups cleanups) {
    this.attempts = attempts;
    this.cleanups = cleanups;
    this.proposer = proposer;
    this.names = names;
    this.hub = hub;
    this.limits = limits;
    this.executor = executor;
  }

  void campaign(CampaignAllRequest req, ServerCallStreamObserver<CampaignAllResponse> obs) {
    if (req.getNamesCount() == 0) {
      throw StatusCodes.invalid("CampaignAll needs at least one name");
    }
    req.getNamesList().forEach(Validation::newName);
    Validation.value(req.getValue());
    Validation.lease(req.getLease());
    names.check(Admission.IDENTITY.get(), req.getNamesCount());
    String first = req.getNames(0);
    String attempt = attempts.next();
    CampaignWaiter waiter = new CampaignWaiter(hub, first, req.getLease(), executor);
    AtomicBoolean answered = new AtomicBoolean();
    obs.setOnCancelHandler(() -> {
      waiter.close();
      if (answered.compareAndSet(false, true)) {
        giveUp(req.getNamesList(), req.getLease(), attempts.cleanupAttempt(attempt));
      }
    });
    proposer.propose(LogEntry.newBuilder().setCampaignAll(CampaignAll.newBuilder().addAllNames(req.getNamesList())
        .setLeaseId(req.getLease()).setValue(req.getValue()).setMaxNames(limits.maxNames()).setAttempt(attempt)))
        .whenComplete((r, err) -> {
          if (err != null || r.getElected() || r.getCode() != Code.OK) {
            waiter.close();
            CallAnswers.answerOnce(obs, answered, err, () -> keys(req, tokenOf(StatusCodes.check(r))));
            return;
          }
          waiter.arm(r.getIndex());
          waiter.elected().whenComplete((h, e) -> {
            waiter.close();
            CallAnswers.answerOnce(obs, answered, e, () -> keys(req, h.getToken()));
          });
        });
  }


  /** One key per name: all were taken in one apply, with one token and the request's value. */
  private static CampaignAllResponse keys(CampaignAllRequest req, long token) {
    CampaignAllResponse.Builder b = CampaignAllResponse.newBuilder();
    for (String name : req.getNamesList()) {
      b.addLeaders(LeaderKey.newBuilder().setName(name).setValue(req.getValue()).setToken(token)
          .setLease(req.getLease()));
    }
    return b.build();
  }

  private static long tokenOf(Result r) {
    return r.getAllNames(0).getHolder().getToken();
  }

  /**
   * Withdraws the candidacy of {@code attempt} (from every name at once); resigns every name if it was elected first —
   * each only while the candidacy or holder still bears {@code attempt} (empty: whatever it is); again until it
   * commits ({@link Cleanups}).
   */
  private void giveUp(List<String> names, long lease, String attempt) {
    cleanups.run("withdrawing lease " + lease + " from " + names, () -> proposer.propose(LogEntry.newBuilder()
            .setWithdraw(Withdraw.newBuilder().setName(names.get(0)).setLeaseId(lease).setAttempt(attempt)))
        .thenCompose(r -> {
          if (!r.getName().hasHolder() || r.getName().getHolder().getLeaseId() != lease) {
            return CompletableFuture.completedFuture(r);
          }
          long token = r.getName().getHolder().getToken();
          CompletableFuture<Result> all = CompletableFuture.completedFuture(r);
          for (String n : names) {
            all = all.thenCompose(x -> proposer.propose(LogEntry.newBuilder().setResign(Resign.newBuilder()
                .setName(n).setToken(token).setAttempt(attempt))));
          }
          return all;
        }));
  }
}
