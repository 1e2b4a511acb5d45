package io.regent.server.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.server.concurrent.NodeExecutors;
import io.regent.statemachine.apply.EntryCodec;
import io.regent.statemachine.proto.Confirm;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Resign;
import io.regent.statemachine.proto.Result;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
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
 * Ratis completes a reply's future inside its client's sliding-window lock; whatever runs next may send again
 * (the proposal batcher's next batch, a Confirm round's follow-up), and two such continuations on two clients
 * deadlock on each other's locks (thread dumps of a node under 10 000 keepalives). So no continuation of a
 * {@link RatisProposer} answer may run on the thread that completed Ratis's future.
 */
class RatisProposerRepliesTest {
  private final NodeExecutors executors = new NodeExecutors();
  /** The future the fake client's last send returned, completed by the test as Ratis's reply thread would. */
  private final AtomicReference<CompletableFuture<RaftClientReply>> pending = new AtomicReference<>();

  @AfterEach
  void stop() throws InterruptedException {
    executors.close();
  }

  @Test
  void aProposalsAnswerContinuesOffTheThreadThatCompletedRatissReply() throws Exception {
    try (RaftClientPool pool = new RaftClientPool(1, leader -> fakeClient(), 60_000, executors)) {
      RatisProposer proposer = new RatisProposer(pool, 10_000, 10_000, executors.replies(), () -> EntryCodec.MAX_VERSION);
      CompletableFuture<String> ranOn = proposer.propose(LogEntry.newBuilder().setResign(Resign.newBuilder()
          .setName("a"))).thenApply(r -> Thread.currentThread().getName());
      assertThat(completeOnARatisThread()).isNotEqualTo(ranOn.get(5, TimeUnit.SECONDS));
      assertThat(ranOn.get()).startsWith("regent-raft-reply");
    }
  }

  @Test
  void aLeaderQuestionsAnswerContinuesOffTheThreadThatCompletedRatissReply() throws Exception {
    try (RaftClientPool pool = new RaftClientPool(1, leader -> fakeClient(), 60_000, executors)) {
      RatisProposer proposer = new RatisProposer(pool, 10_000, 10_000, executors.replies(), () -> EntryCodec.MAX_VERSION);
      CompletableFuture<String> ranOn = proposer.ask(Confirm.newBuilder())
          .thenApply(r -> Thread.currentThread().getName());
      assertThat(completeOnARatisThread()).isNotEqualTo(ranOn.get(5, TimeUnit.SECONDS));
      assertThat(ranOn.get()).startsWith("regent-raft-reply");
    }
  }

  /** Completes the pending send with a successful reply on a thread named as Ratis's; returns that name. */
  private String completeOnARatisThread() throws InterruptedException {
    RaftClientReply reply = RaftClientReply.newBuilder().setClientId(ClientId.randomId())
        .setServerId(RaftPeerId.valueOf("n1")).setGroupId(RaftGroupId.randomId()).setSuccess()
        .setMessage(Message.valueOf(ByteString.copyFrom(Result.getDefaultInstance().toByteArray()))).build();
    Thread t = new Thread(() -> pending.get().complete(reply), "ratis-client-reply");
    t.start();
    t.join();
    return t.getName();
  }

  private RaftClient fakeClient() {
    return FakeRaftClient.answering(() -> {
      CompletableFuture<RaftClientReply> f = new CompletableFuture<>();
      pending.set(f);
      return f;
    });
  }
}
