package io.regent.server.api;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.LockGrpc;
import io.regent.api.v1.LockRequest;
import io.regent.api.v1.LockResponse;
import io.regent.api.v1.UnlockRequest;
import io.regent.api.v1.UnlockResponse;
import io.regent.server.replication.Proposer;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Resign;

/** The {@code regent.v1.Lock} service: a lock is a name whose value is the owner's identity. */
final class LockService extends LockGrpc.LockImplBase {
  private final Campaigns campaigns;
  private final Proposer proposer;

  LockService(Campaigns campaigns, Proposer proposer) {
    this.campaigns = campaigns;
    this.proposer = proposer;
  }

  @Override
  public void lock(LockRequest req, StreamObserver<LockResponse> obs) {
    // Without no_wait a waiting campaign's outcome is always elected: its key is set.
    CallAnswers.guard(obs, () -> CallAnswers.replyUnlessCancelled(req.getTtlMs() != 0
        ? campaigns.campaignWithTtl(req.getName(), req.getLease(), req.getTtlMs(), req.getOwner(),
            req.getLockDelayMs(), false, RequestId.of(req))
        : campaigns.campaign(req.getName(), req.getLease(), req.getOwner(), req.getLockDelayMs(), false,
            ((ServerCallStreamObserver<LockResponse>) obs)::setOnCancelHandler), o -> {
          LockResponse.Builder b = LockResponse.newBuilder().setLease(o.grantedLease());
          if (o.elected()) {
            b.setKey(o.holder());
          }
          return b.build();
        }, obs));
  }

  @Override
  public void unlock(UnlockRequest req, StreamObserver<UnlockResponse> obs) {
    CallAnswers.guard(obs, () -> {
      LeaderKey k = Validation.key(req.getKey());
      CallAnswers.reply(proposer.propose(RequestId.of(req).stamp(LogEntry.newBuilder().setResign(Resign.newBuilder()
              .setName(k.getName()).setToken(k.getToken()).setRevokeLease(req.getRevokeLease())))),
          r -> UnlockResponse.newBuilder().setIndex(StatusCodes.check(r).getIndex()).build(), obs);
    });
  }
}
