package io.regent.server.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.regent.server.concurrent.NodeExecutors;
import io.regent.server.replication.Proposer.UnavailableException;
import io.regent.statemachine.apply.EntryCodec;
import io.regent.statemachine.proto.Checkpoint;
import io.regent.statemachine.proto.LeaseCheckpoint;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Resign;
import io.regent.statemachine.proto.Result;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.proto.RaftProtos.RaftClientRequestProto.TypeCase;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * On its ready leader a node hands its entries to its own Ratis division in process (LocalSubmission); a refusal
 * before the append goes to the Ratis clients instead, and a step-down after the append re-sends only an entry
 * whose later copies change nothing (docs/api.md "Request ids").
 */
class RatisProposerLocalTest {
  private final NodeExecutors executors = new NodeExecutors();
  /** What the pool's clients were sent. */
  private final List<Message> throughClients = new ArrayList<>();

  @AfterEach
  void stop() throws InterruptedException {
    executors.close();
  }

  @Test
  void theReadyLeaderSubmitsToItsOwnDivisionAndNoClientCarriesTheEntry() throws Exception {
    FakeDivision division = new FakeDivision(request -> CompletableFuture.completedFuture(ok(request)));
    try (RaftClientPool pool = pool()) {
      assertThat(proposer(pool, division).propose(resign()).get(5, TimeUnit.SECONDS)).isEqualTo(Result.getDefaultInstance());
      assertThat(throughClients).isEmpty();
      assertThat(division.requests).hasSize(1);
      assertThat(division.requests.get(0).is(TypeCase.WRITE)).isTrue();
    }
  }

  @Test
  void everyLocalRequestHasACallIdOfItsOwnForRatissRetryCache() throws Exception {
    FakeDivision division = new FakeDivision(request -> CompletableFuture.completedFuture(ok(request)));
    try (RaftClientPool pool = pool()) {
      RatisProposer proposer = proposer(pool, division);
      proposer.propose(resign()).get(5, TimeUnit.SECONDS);
      proposer.propose(resign()).get(5, TimeUnit.SECONDS);
      assertThat(division.requests).extracting(RaftClientRequest::getCallId).doesNotHaveDuplicates();
      assertThat(division.requests).extracting(RaftClientRequest::getClientId).containsOnly(
          division.requests.get(0).getClientId());
    }
  }

  @Test
  void aRefusalBeforeTheAppendSendsEvenAnEntryALaterCopyWouldChangeThroughTheClients() throws Exception {
    // not the leader any more when Ratis checked: nothing was appended, so the one copy goes to the leader
    FakeDivision division = new FakeDivision(request -> CompletableFuture.completedFuture(notLeader(request)));
    try (RaftClientPool pool = pool()) {
      assertThat(proposer(pool, division).propose(checkpoint()).get(5, TimeUnit.SECONDS))
          .isEqualTo(Result.getDefaultInstance());
      assertThat(division.requests).hasSize(1);
      assertThat(throughClients).hasSize(1);
    }
  }

  @Test
  void aStepDownAfterTheAppendResendsAnEntryWithARequestIdThroughTheClients() throws Exception {
    List<CompletableFuture<RaftClientReply>> pending = new ArrayList<>();
    FakeDivision division = new FakeDivision(request -> add(pending, new CompletableFuture<>()));
    try (RaftClientPool pool = pool()) {
      CompletableFuture<Result> answer = proposer(pool, division).propose(resign());
      assertThat(throughClients).isEmpty();
      pending.get(0).complete(notLeader(division.requests.get(0)));
      assertThat(answer.get(5, TimeUnit.SECONDS)).isEqualTo(Result.getDefaultInstance());
      assertThat(throughClients).hasSize(1);
    }
  }

  @Test
  void aStepDownAfterTheAppendFailsAnEntryALaterCopyWouldChangeForItMayStillCommit() {
    List<CompletableFuture<RaftClientReply>> pending = new ArrayList<>();
    FakeDivision division = new FakeDivision(request -> add(pending, new CompletableFuture<>()));
    try (RaftClientPool pool = pool()) {
      CompletableFuture<Result> answer = proposer(pool, division).propose(checkpoint());
      pending.get(0).complete(notLeader(division.requests.get(0)));
      assertThatThrownBy(() -> answer.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(UnavailableException.class);
      assertThat(throughClients).as("not sent a second time").isEmpty();
    }
  }

  private RatisProposer proposer(RaftClientPool pool, FakeDivision division) {
    return new RatisProposer(pool, division.submission, 60_000, 10_000, executors.replies(),
        () -> EntryCodec.MAX_VERSION);
  }

  /** One client that records what it is sent and answers it at once. */
  private RaftClientPool pool() {
    return new RaftClientPool(1, leader -> FakeRaftClient.sending(msg -> {
      throughClients.add(msg);
      return CompletableFuture.completedFuture(ok(null));
    }), 60_000, executors);
  }

  private static <T> T add(List<T> list, T t) {
    list.add(t);
    return t;
  }

  /** A client's Resign, with its request id: a later copy is answered from the first's record. */
  private static LogEntry.Builder resign() {
    return LogEntry.newBuilder().setRequestId("r-1").setResign(Resign.newBuilder().setName("a").setToken(3));
  }

  /** A lease checkpoint: a late copy would restore an older remaining TTL (Repeats#harmless). */
  private static LogEntry.Builder checkpoint() {
    return LogEntry.newBuilder().setLeaseCheckpoint(LeaseCheckpoint.newBuilder().setProposerTerm(2)
        .addCheckpoints(Checkpoint.newBuilder().setLeaseId(7).setRemainingMs(9_000).setRenewedIndex(5)));
  }

  private static RaftClientReply ok(RaftClientRequest request) {
    return reply(request).setSuccess()
        .setMessage(Message.valueOf(ByteString.copyFrom(Result.getDefaultInstance().toByteArray()))).build();
  }

  private static RaftClientReply notLeader(RaftClientRequest request) {
    RaftGroupMemberId self = RaftGroupMemberId.valueOf(RaftPeerId.valueOf("n1"), RaftSetup.GROUP_ID);
    RaftPeer next = RaftPeer.newBuilder().setId("n2").setAddress("127.0.0.1:1").build();
    return reply(request).setException(new NotLeaderException(self, next, List.of(next))).build();
  }

  private static RaftClientReply.Builder reply(RaftClientRequest request) {
    return RaftClientReply.newBuilder().setClientId(request == null ? ClientId.randomId() : request.getClientId())
        .setServerId(RaftPeerId.valueOf("n1")).setGroupId(request == null ? RaftGroupId.randomId() : RaftSetup.GROUP_ID)
        .setCallId(request == null ? 0 : request.getCallId());
  }
}
