package io.regent.server.api;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.GroupGrpc;
import io.regent.api.v1.GroupJoinRequest;
import io.regent.api.v1.GroupJoinResponse;
import io.regent.api.v1.GroupLeaveRequest;
import io.regent.api.v1.GroupLeaveResponse;
import io.regent.api.v1.GroupReleaseRequest;
import io.regent.api.v1.GroupReleaseResponse;
import io.regent.api.v1.GroupStatusRequest;
import io.regent.api.v1.GroupStatusResponse;
import io.regent.api.v1.GroupWatchRequest;
import io.regent.api.v1.GroupWatchResponse;
import io.regent.api.v1.PartitionToken;
import io.regent.server.replication.Proposer;
import io.regent.statemachine.limits.Limits;
import io.regent.statemachine.group.GroupLimits;
import io.regent.statemachine.proto.GroupJoin;
import io.regent.statemachine.proto.GroupLeave;
import io.regent.statemachine.proto.GroupRecord;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.ReleaseSet;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.replica.ReplicaView;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@code regent.v1.Group} service: ownership groups (docs/ownership.md). Joins and leaves are one entry
 * each; releases are batched per node ({@link ReleaseBatcher}); Status and the start of Watch are
 * linearizable reads ({@link StateReader}). Input is checked here and again at apply; a refusal changes
 * nothing.
 */
final class GroupService extends GroupGrpc.GroupImplBase {
  private final Proposer proposer;
  private final ReleaseBatcher releases;
  private final StateReader reader;
  private final ReplicaView replica;
  private final GroupSnapshots snapshots;
  private final Executor executor;
  private final long minTtlMs;
  private final int maxWatchers;
  private final AtomicInteger watching = new AtomicInteger();

  /**
   * @param executor runs the Watch streams' drains
   * @param minTtlMs smallest TTL a join may ask for, ms (as for Lease.Grant)
   * @param maxWatchers Watch streams this node serves at once
   */
  GroupService(Proposer proposer, StateReader reader, ReplicaView replica, Executor executor, long minTtlMs,
               int maxWatchers) {
    this.proposer = proposer;
    this.releases = new ReleaseBatcher(proposer);
    this.reader = reader;
    this.replica = replica;
    this.snapshots = new GroupSnapshots(replica);
    this.executor = executor;
    this.minTtlMs = minTtlMs;
    this.maxWatchers = maxWatchers;
  }

  @Override
  public void join(GroupJoinRequest req, StreamObserver<GroupJoinResponse> obs) {
    CallAnswers.guard(obs, () -> {
      check(GroupLimits.checkGroup(req.getGroup()));
      check(GroupLimits.checkMemberId(req.getMember()));
      check(GroupLimits.checkPartitions(req.getPartitions()));
      if ((req.getLease() > 0) == (req.getTtlMs() > 0) || req.getLease() < 0 || req.getTtlMs() < 0) {
        throw StatusCodes.invalid("give either a lease id or a TTL");
      }
      if (req.getTtlMs() > 0 && (req.getTtlMs() < minTtlMs || req.getTtlMs() > Limits.MAX_TTL_MS)) {
        throw StatusCodes.invalid("ttl " + req.getTtlMs() + " ms outside [" + minTtlMs + ", " + Limits.MAX_TTL_MS
            + "]");
      }
      CallAnswers.reply(proposer.propose(RequestId.of(req).stamp(LogEntry.newBuilder().setGroupJoin(GroupJoin
              .newBuilder().setGroup(req.getGroup()).setMemberId(req.getMember()).setLeaseId(req.getLease())
              .setTtlMs(req.getTtlMs()).setPartitions(req.getPartitions())))),
          r -> GroupJoinResponse.newBuilder().setLease(StatusCodes.check(r).getLeaseId()).setIndex(r.getIndex())
              .build(),
          obs);
    });
  }

  @Override
  public void leave(GroupLeaveRequest req, StreamObserver<GroupLeaveResponse> obs) {
    CallAnswers.guard(obs, () -> {
      check(GroupLimits.checkGroup(req.getGroup()));
      check(GroupLimits.checkMemberId(req.getMember()));
      Validation.lease(req.getLease());
      CallAnswers.reply(proposer.propose(RequestId.of(req).stamp(LogEntry.newBuilder().setGroupLeave(GroupLeave
              .newBuilder().setGroup(req.getGroup()).setMemberId(req.getMember()).setLeaseId(req.getLease())))),
          r -> GroupLeaveResponse.newBuilder().setIndex(StatusCodes.check(r).getIndex()).build(), obs);
    });
  }

  @Override
  public void release(GroupReleaseRequest req, StreamObserver<GroupReleaseResponse> obs) {
    CallAnswers.guard(obs, () -> {
      check(GroupLimits.checkGroup(req.getGroup()));
      if (req.getPartitionsCount() == 0 || req.getPartitionsCount() > GroupLimits.MAX_PARTITIONS) {
        throw StatusCodes.invalid("release 1.." + GroupLimits.MAX_PARTITIONS + " partitions, not "
            + req.getPartitionsCount());
      }
      ReleaseSet.Builder set = ReleaseSet.newBuilder().setGroup(req.getGroup());
      for (PartitionToken pt : req.getPartitionsList()) {
        if (pt.getToken() <= 0) {
          throw StatusCodes.invalid("token must be positive, got " + pt.getToken());
        }
        set.addPartitions(pt.getPartition()).addTokens(pt.getToken());
      }
      CallAnswers.reply(releases.release(set.build()), done -> {
        StatusCodes.check(Result.newBuilder().setCode(done.result().getCode()).setMessage(done.result().getMessage())
            .build());
        return GroupReleaseResponse.newBuilder().setIndex(done.index()).build();
      }, obs);
    });
  }

  @Override
  public void status(GroupStatusRequest req, StreamObserver<GroupStatusResponse> obs) {
    CallAnswers.guard(obs, () -> {
      check(GroupLimits.checkGroup(req.getGroup()));
      CallAnswers.reply(reader.read(req.getSerializable(),
              txn -> new Read(txn.group(req.getGroup()), txn.appliedIndex())),
          read -> {
            if (read.group == null) {
              throw Status.NOT_FOUND.withDescription("group '" + req.getGroup() + "' not found").asRuntimeException();
            }
            return GroupViews.status(read.group, read.index);
          }, obs);
    });
  }

  @Override
  public void watch(GroupWatchRequest req, StreamObserver<GroupWatchResponse> obs) {
    CallAnswers.guard(obs, () -> {
      check(GroupLimits.checkGroup(req.getGroup()));
      check(GroupLimits.checkMemberId(req.getMember()));
      if (watching.incrementAndGet() > maxWatchers) {
        watching.decrementAndGet();
        throw Status.RESOURCE_EXHAUSTED.withDescription("this node serves " + maxWatchers
            + " group watch streams, its limit (--max-observers); retry later or watch through another node")
            .asRuntimeException();
      }
      GroupSnapshots.Shared shared = snapshots.open(req.getGroup());
      GroupWatchStream stream = new GroupWatchStream(req.getGroup(), req.getMember(), req.getAfterIndex(),
          (ServerCallStreamObserver<GroupWatchResponse>) obs, shared, replica.hub(), executor, () -> {
            snapshots.close(shared);
            watching.decrementAndGet();
          });
      // Subscribe first, then read: no change after the linearizable point is missed.
      replica.hub().listen(stream);
      reader.read(false, txn -> txn.appliedIndex()).whenComplete((index, err) -> {
        if (err != null) {
          stream.fail(StatusCodes.toStatus(err).getStatus());
        } else {
          stream.start(index);
        }
      });
    });
  }

  private static void check(String bad) {
    if (bad != null) {
      throw StatusCodes.invalid(bad);
    }
  }

  private record Read(GroupRecord group, long index) {
  }
}
