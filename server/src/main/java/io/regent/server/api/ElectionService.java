package io.regent.server.api;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.CampaignAllRequest;
import io.regent.api.v1.CampaignAllResponse;
import io.regent.api.v1.CampaignRequest;
import io.regent.api.v1.CampaignResponse;
import io.regent.api.v1.ElectionGrpc;
import io.regent.api.v1.FreshTokenRequest;
import io.regent.api.v1.FreshTokenResponse;
import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.LeaderRequest;
import io.regent.api.v1.LeaderResponse;
import io.regent.api.v1.ObserveRequest;
import io.regent.api.v1.ObserveResponse;
import io.regent.api.v1.ProclaimRequest;
import io.regent.api.v1.ProclaimResponse;
import io.regent.api.v1.ResignRequest;
import io.regent.api.v1.ResignResponse;
import io.regent.server.replication.Proposer;
import io.regent.statemachine.proto.FreshToken;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.proto.Proclaim;
import io.regent.statemachine.proto.Resign;

/**
 * The {@code regent.v1.Election} service (etcd v3 election API shape). Campaigns are served by
 * {@link Campaigns}; the holder-only commands are checked by token at apply.
 */
final class ElectionService extends ElectionGrpc.ElectionImplBase {
  private final Campaigns campaigns;
  private final CampaignAllCall campaignAll;
  private final ObserveStreams observeStreams;
  private final StateReader reader;
  private final Proposer proposer;

  ElectionService(Campaigns campaigns, ObserveStreams observeStreams, StateReader reader, Proposer proposer,
                  CampaignAllCall campaignAll) {
    this.campaigns = campaigns;
    this.campaignAll = campaignAll;
    this.observeStreams = observeStreams;
    this.reader = reader;
    this.proposer = proposer;
  }

  @Override
  public void campaign(CampaignRequest req, StreamObserver<CampaignResponse> obs) {
    CallAnswers.guard(obs, () -> CallAnswers.replyUnlessCancelled(req.getTtlMs() != 0
        ? campaigns.campaignWithTtl(req.getName(), req.getLease(), req.getTtlMs(), req.getValue(),
            req.getLockDelayMs(), req.getNoWait(), RequestId.of(req))
        : campaigns.campaign(req.getName(), req.getLease(), req.getValue(), req.getLockDelayMs(), req.getNoWait(),
            ((ServerCallStreamObserver<CampaignResponse>) obs)::setOnCancelHandler), o -> {
          CampaignResponse.Builder b = CampaignResponse.newBuilder().setElected(o.elected())
              .setLease(o.grantedLease());
          if (o.holder() != null) {
            b.setLeader(o.holder());
          }
          return b.build();
        }, obs));
  }

  @Override
  public void campaignAll(CampaignAllRequest req, StreamObserver<CampaignAllResponse> obs) {
    CallAnswers.guard(obs, () -> campaignAll.campaign(req, (ServerCallStreamObserver<CampaignAllResponse>) obs));
  }

  @Override
  public void proclaim(ProclaimRequest req, StreamObserver<ProclaimResponse> obs) {
    CallAnswers.guard(obs, () -> {
      LeaderKey k = Validation.key(req.getLeader());
      Validation.value(req.getValue());
      CallAnswers.reply(proposer.propose(RequestId.of(req).stamp(LogEntry.newBuilder().setProclaim(Proclaim
              .newBuilder().setName(k.getName()).setToken(k.getToken()).setValue(req.getValue())))),
          r -> ProclaimResponse.newBuilder().setLeader(holderKey(StatusCodes.check(r).getName())).build(), obs);
    });
  }

  @Override
  public void resign(ResignRequest req, StreamObserver<ResignResponse> obs) {
    CallAnswers.guard(obs, () -> {
      LeaderKey k = Validation.key(req.getLeader());
      CallAnswers.reply(proposer.propose(RequestId.of(req).stamp(LogEntry.newBuilder().setResign(Resign.newBuilder()
              .setName(k.getName()).setToken(k.getToken()).setRevokeLease(req.getRevokeLease())))),
          r -> ResignResponse.newBuilder().setIndex(StatusCodes.check(r).getIndex()).build(), obs);
    });
  }

  @Override
  public void freshToken(FreshTokenRequest req, StreamObserver<FreshTokenResponse> obs) {
    CallAnswers.guard(obs, () -> {
      LeaderKey k = Validation.key(req.getLeader());
      CallAnswers.reply(proposer.propose(RequestId.of(req).stamp(LogEntry.newBuilder().setFreshToken(FreshToken
              .newBuilder().setName(k.getName()).setToken(k.getToken())))),
          r -> FreshTokenResponse.newBuilder().setLeader(holderKey(StatusCodes.check(r).getName())).build(), obs);
    });
  }

  @Override
  public void leader(LeaderRequest req, StreamObserver<LeaderResponse> obs) {
    CallAnswers.guard(obs, () -> {
      String name = Validation.name(req.getName());
      CallAnswers.reply(reader.holder(req.getSerializable(), name), holder -> {
        if (holder.value().isEmpty()) {
          throw Status.NOT_FOUND.withDescription("'" + name + "' has no leader").asRuntimeException();
        }
        return LeaderResponse.newBuilder().setLeader(LeaderKeys.leaderKey(name, holder.value().get()))
            .setAppliedIndex(holder.index()).build();
      }, obs);
    });
  }

  @Override
  public void observe(ObserveRequest req, StreamObserver<ObserveResponse> obs) {
    CallAnswers.guard(obs, () -> {
      if (req.getAfterIndex() < 0) {
        throw StatusCodes.invalid("after index " + req.getAfterIndex() + " is negative (0: from the current state)");
      }
      if (req.getAfterOrdinal() < 0 || (req.getAfterOrdinal() > 0 && req.getAfterIndex() == 0)) {
        throw StatusCodes.invalid("after ordinal " + req.getAfterOrdinal() + " must be 0, or an event's ordinal "
            + "(1 or more) with the after index of its entry");
      }
      observeStreams.observe(Validation.name(req.getName()), req.getAfterIndex(), req.getAfterOrdinal(),
          (ServerCallStreamObserver<ObserveResponse>) obs);
    });
  }

  private static LeaderKey holderKey(NameRecord rec) {
    return LeaderKeys.leaderKey(rec.getName(), rec.getHolder());
  }
}
