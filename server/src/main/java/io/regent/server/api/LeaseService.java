package io.regent.server.api;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.LeaseGrantRequest;
import io.regent.api.v1.LeaseGrantResponse;
import io.regent.api.v1.LeaseGrpc;
import io.regent.api.v1.LeaseInfo;
import io.regent.api.v1.LeaseKeepAliveManyRequest;
import io.regent.api.v1.LeaseKeepAliveManyResponse;
import io.regent.api.v1.LeaseKeepAliveRequest;
import io.regent.api.v1.LeaseKeepAliveResponse;
import io.regent.api.v1.LeaseLeasesRequest;
import io.regent.api.v1.LeaseLeasesResponse;
import io.regent.api.v1.LeaseRevokeRequest;
import io.regent.api.v1.LeaseRevokeResponse;
import io.regent.api.v1.LeaseTimeToLiveRequest;
import io.regent.api.v1.LeaseTimeToLiveResponse;
import io.regent.server.confirm.Confirmation;
import io.regent.server.confirm.Confirmer;
import io.regent.server.replication.Proposer;
import io.regent.statemachine.proto.Grant;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.LeaseStatus;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Revoke;
import java.util.List;
import java.util.function.Supplier;
import java.util.concurrent.CompletableFuture;

/**
 * The {@code regent.v1.Lease} service: grant, revoke, keepalive, time-to-live and listing.
 *
 * <p>A keepalive is acknowledged only after a leadership confirmation by the ready leader, which renewed the
 * deadline: its leadership lease, or a Confirm round begun after the keepalive arrived (docs/architecture.md
 * §3.3, §8.1). Anything less answers UNAVAILABLE.
 */
final class LeaseService extends LeaseGrpc.LeaseImplBase {
  /** Most lease ids one KeepAliveMany may renew (keeps a Confirm entry and a reply well below 1 MiB). */
  static final int MAX_KEEPALIVE_IDS = 10_000;

  private final Proposer proposer;
  private final Confirmer confirmer;
  private final StateReader reader;
  private final LeaseGrants grants;
  private final Supplier<NamedLeader> leader;
  private final NodeClock clock;

  /**
   * @param grants TTL range, {@code --max-ttl}, and the per-connection and node-wide lease limits
   * @param leader the leader as this node's replies name it, for keepalive streams to follow it
   * @param clock stamps each renewal's answer with this node's monotonic clock (docs/architecture.md §3.6)
   */
  LeaseService(Proposer proposer, Confirmer confirmer, StateReader reader, LeaseGrants grants,
               Supplier<NamedLeader> leader, NodeClock clock) {
    this.leader = leader;
    this.clock = clock;
    this.proposer = proposer;
    this.confirmer = confirmer;
    this.reader = reader;
    this.grants = grants;
  }

  /**
   * A TTL outside the contract's range is INVALID_ARGUMENT; one inside it but above this node's
   * {@code --max-ttl} is RESOURCE_EXHAUSTED, as are grants beyond the per-connection and node-wide lease limits.
   */
  @Override
  public void grant(LeaseGrantRequest req, StreamObserver<LeaseGrantResponse> obs) {
    CallAnswers.guard(obs, () -> {
      long ttl = grants.checkTtl(req.getTtlMs());
      RequestId id = RequestId.of(req);
      CallAnswers.reply(grants.propose(() -> proposer.propose(id.stamp(LogEntry.newBuilder().setGrant(Grant
              .newBuilder().setTtlMs(ttl).setMaxLeases(grants.maxLeases()))))),
          r -> LeaseGrantResponse.newBuilder().setId(StatusCodes.check(r).getLeaseId()).setTtlMs(ttl).build(), obs);
    });
  }

  @Override
  public void revoke(LeaseRevokeRequest req, StreamObserver<LeaseRevokeResponse> obs) {
    CallAnswers.guard(obs, () -> CallAnswers.reply(proposer.propose(RequestId.of(req).stamp(LogEntry.newBuilder()
            .setRevoke(Revoke.newBuilder().setLeaseId(req.getId())))),
        r -> LeaseRevokeResponse.newBuilder().setIndex(StatusCodes.check(r).getIndex()).build(), obs));
  }

  @Override
  public void keepAlive(LeaseKeepAliveRequest req, StreamObserver<LeaseKeepAliveResponse> obs) {
    CallAnswers.reply(renewal(req.getId()), r -> r, obs);
  }

  /** One stream of keepalives, each answered as {@link #keepAlive} would answer it (see {@link KeepAliveStream}). */
  @Override
  public StreamObserver<LeaseKeepAliveRequest> keepAliveStream(StreamObserver<LeaseKeepAliveResponse> obs) {
    return new KeepAliveStream(obs, this::renewal, leader);
  }

  /**
   * The renewal of lease {@code id}: its TTL once confirmed, with this node's clock read as it answers (inside
   * the client's send-to-receive interval), or the failure {@link #measured} names.
   */
  CompletableFuture<LeaseKeepAliveResponse> renewal(long id) {
    return confirmer.confirmLeases(List.of(id), List.of()).thenApply(c ->
        clock.stamp(LeaseKeepAliveResponse.newBuilder().setId(id).setTtlMs(measured(c, id).getTtlMs())).build());
  }

  /**
   * Renews many leases in one confirmation round. INVALID_ARGUMENT for no id or more than
   * {@link #MAX_KEEPALIVE_IDS}; UNAVAILABLE when no ready leader confirmed the round.
   */
  @Override
  public void keepAliveMany(LeaseKeepAliveManyRequest req, StreamObserver<LeaseKeepAliveManyResponse> obs) {
    CallAnswers.guard(obs, () -> {
      if (req.getIdsCount() == 0 || req.getIdsCount() > MAX_KEEPALIVE_IDS) {
        throw StatusCodes.invalid(req.getIdsCount() + " lease ids: between 1 and " + MAX_KEEPALIVE_IDS + " per call");
      }
      CallAnswers.reply(confirmer.confirmLeases(req.getIdsList(), List.of()), c -> {
        LeaseKeepAliveManyResponse.Builder b = LeaseKeepAliveManyResponse.newBuilder();
        for (long id : req.getIdsList()) {
          LeaseStatus s = c.leases().get(id);
          boolean renewed = s != null && s.getAlive() && !s.getExpiring();
          if (renewed && s.getRemainingMs() < 0) {
            throw notConfirmed();
          }
          b.addResults(LeaseKeepAliveResponse.newBuilder().setId(id).setTtlMs(renewed ? s.getTtlMs() : 0));
        }
        return b.build();
      }, obs);
    });
  }

  @Override
  public void timeToLive(LeaseTimeToLiveRequest req, StreamObserver<LeaseTimeToLiveResponse> obs) {
    CallAnswers.reply(confirmer.confirmLeases(List.of(), List.of(req.getId()))
        .thenCompose(c -> reader.awaitApplied(c.result().getIndex()).thenApply(i -> c)), c -> {
          LeaseStatus s = measured(c, req.getId());
          LeaseTimeToLiveResponse.Builder b = LeaseTimeToLiveResponse.newBuilder().setId(req.getId())
              .setTtlMs(s.getTtlMs()).setRemainingMs(s.getRemainingMs());
          // The local replica has applied the Confirm, so it holds the lease's names as of that round.
          LeaseRecord lease = reader.local(txn -> txn.lease(req.getId()));
          if (lease != null) {
            b.addAllNames(lease.getNamesList());
          }
          return b.build();
        }, obs);
  }

  @Override
  public void leases(LeaseLeasesRequest req, StreamObserver<LeaseLeasesResponse> obs) {
    CallAnswers.reply(reader.read(req.getSerializable(), txn -> new StateReader.AtIndex<>(txn.allLeases(),
        txn.appliedIndex())), all -> {
      LeaseLeasesResponse.Builder b = LeaseLeasesResponse.newBuilder().setAppliedIndex(all.index());
      for (LeaseRecord l : all.value()) {
        b.addLeases(LeaseInfo.newBuilder().setId(l.getId()).setTtlMs(l.getTtlMs()).addAllNames(l.getNamesList()));
      }
      return b.build();
    }, obs);
  }

  /**
   * The status of {@code id} in a Confirm round, measured by the ready leader (remaining time at least 0):
   * NOT_FOUND when the lease is gone; UNAVAILABLE while it is expiring (the leader measured its TTL as elapsed
   * and its Expire has not applied: a failover before it applies would keep the lease, so the answer is not
   * final) or when no ready leader measured it.
   */
  private static LeaseStatus measured(Confirmation c, long id) {
    LeaseStatus s = c.leases().get(id);
    if (s == null) {
      throw Status.INTERNAL.withDescription("confirm result lacks lease " + id).asRuntimeException();
    }
    if (!s.getAlive()) {
      throw Status.NOT_FOUND.withDescription("lease " + id + " not found or expired").asRuntimeException();
    }
    if (s.getExpiring()) {
      throw Status.UNAVAILABLE.withDescription("lease " + id + " is expiring: the leader measured its TTL as elapsed"
          + " and its expiry is not yet applied; retry (NOT_FOUND once it is)").asRuntimeException();
    }
    if (s.getRemainingMs() < 0) {
      throw notConfirmed();
    }
    return s;
  }

  private static RuntimeException notConfirmed() {
    return Status.UNAVAILABLE.withDescription("not confirmed by a ready leader (a leader change is under way); retry").asRuntimeException();
  }
}
