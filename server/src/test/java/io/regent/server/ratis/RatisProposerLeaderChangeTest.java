package io.regent.server.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.server.concurrent.NodeExecutors;
import io.regent.statemachine.apply.EntryCodec;
import io.regent.statemachine.proto.Checkpoint;
import io.regent.statemachine.proto.LeaseCheckpoint;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Resign;
import io.regent.statemachine.proto.Result;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A proposal in flight on a client aimed at a leader that stopped answering is resent through the client that
 * replaced it when the node follows a new leader, instead of waiting out the proposal timeout (issue #40 item 6;
 * FrozenLeaderWritesTest measures it on a cluster).
 */
class RatisProposerLeaderChangeTest {
  private final NodeExecutors executors = new NodeExecutors();
  /** What each client built so far was sent, one list per client, in build order. */
  private final List<List<Message>> sent = new ArrayList<>();

  @AfterEach
  void stop() throws InterruptedException {
    executors.close();
  }

  @Test
  void aProposalStuckOnTheOldLeaderIsResentThroughTheNewLeadersClientWithTheSameBytes() throws Exception {
    // the first client never answers (its leader is frozen); every later one answers at once
    try (RaftClientPool pool = new RaftClientPool(1, leader -> client(sent.isEmpty()), 60_000, executors)) {
      RatisProposer proposer = new RatisProposer(pool, 60_000, 10_000, executors.replies(), () -> EntryCodec.MAX_VERSION);
      CompletableFuture<Result> answer = proposer.propose(resign());
      assertThat(answer).isNotDone();
      pool.followLeader(RaftPeerId.valueOf("n2"));
      assertThat(answer.get(5, TimeUnit.SECONDS)).isEqualTo(Result.getDefaultInstance());
      assertThat(sent).hasSize(2);
      assertThat(sent.get(1)).as("the same entry, request id included").containsExactlyElementsOf(sent.get(0));
    }
  }

  @Test
  void aProposalAnsweredBeforeTheLeaderChangedIsNotSentAgain() throws Exception {
    try (RaftClientPool pool = new RaftClientPool(1, leader -> client(false), 60_000, executors)) {
      RatisProposer proposer = new RatisProposer(pool, 60_000, 10_000, executors.replies(), () -> EntryCodec.MAX_VERSION);
      proposer.propose(LogEntry.newBuilder().setResign(Resign.newBuilder().setName("a"))).get(5, TimeUnit.SECONDS);
      pool.followLeader(RaftPeerId.valueOf("n2"));
      assertThat(sent).hasSize(2);
      assertThat(sent.get(1)).isEmpty();
    }
  }

  @Test
  void anEntryWrittenWithoutRequestIdsIsNotResentOnALeaderChangeForItCouldApplyTwice() {
    try (RaftClientPool pool = new RaftClientPool(1, leader -> client(sent.isEmpty()), 60_000, executors)) {
      RatisProposer proposer = new RatisProposer(pool, 60_000, 10_000, executors.replies(),
          () -> EntryCodec.REQUEST_ID_VERSION - 1); // a voter on a release without request ids
      CompletableFuture<Result> answer = proposer.propose(resign());
      pool.followLeader(RaftPeerId.valueOf("n2"));
      assertThat(sent).hasSize(2);
      assertThat(sent.get(1)).isEmpty();
      assertThat(answer).isNotDone();
    }
  }

  @Test
  void anEntryALaterCopyWouldChangeIsNotResentOnALeaderChange() {
    try (RaftClientPool pool = new RaftClientPool(1, leader -> client(sent.isEmpty()), 60_000, executors)) {
      RatisProposer proposer = new RatisProposer(pool, 60_000, 10_000, executors.replies(), () -> EntryCodec.MAX_VERSION);
      // a late copy of a checkpoint would restore an older remaining TTL (Repeats#harmless)
      CompletableFuture<Result> answer = proposer.propose(LogEntry.newBuilder().setLeaseCheckpoint(
          LeaseCheckpoint.newBuilder().setProposerTerm(2).addCheckpoints(Checkpoint.newBuilder().setLeaseId(7)
              .setRemainingMs(9_000).setRenewedIndex(5))));
      pool.followLeader(RaftPeerId.valueOf("n2"));
      assertThat(sent).hasSize(2);
      assertThat(sent.get(1)).isEmpty();
      assertThat(answer).isNotDone();
    }
  }

  /** A client's Resign, with its request id: a later copy is answered from the first's record. */
  private static LogEntry.Builder resign() {
    return LogEntry.newBuilder().setRequestId("r-1").setResign(Resign.newBuilder().setName("a").setToken(3));
  }

  /** A client that records what it is sent and answers it at once, or never when {@code frozen}. */
  private RaftClient client(boolean frozen) {
    List<Message> mine = new ArrayList<>();
    sent.add(mine);
    return FakeRaftClient.sending(msg -> {
      mine.add(msg);
      return frozen ? new CompletableFuture<>() : CompletableFuture.completedFuture(ok());
    });
  }

  private static RaftClientReply ok() {
    return RaftClientReply.newBuilder().setClientId(ClientId.randomId()).setServerId(RaftPeerId.valueOf("n2"))
        .setGroupId(RaftGroupId.randomId()).setSuccess()
        .setMessage(Message.valueOf(ByteString.copyFrom(Result.getDefaultInstance().toByteArray()))).build();
  }
}
