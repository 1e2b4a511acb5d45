package io.regent.server.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.regent.server.concurrent.NodeExecutors;
import io.regent.server.replication.Proposer;
import io.regent.statemachine.apply.EntryCodec;
import io.regent.statemachine.proto.Confirm;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A follower's question to the leader is bounded by the question timeout, not the proposal timeout: the
 * follower's later requests gather behind its one question in flight (Confirmer), so a question that Ratis keeps
 * waiting — a paused leader, a new leader's not-ready reply retried at another peer — held every keepalive at that
 * follower for the whole proposal timeout (10 s by default, three times the minimum TTL of the default timing).
 * Before the question timeout this test waited those 10 s and failed.
 */
class RatisProposerQuestionTest {
  private final NodeExecutors executors = new NodeExecutors();

  @AfterEach
  void stop() throws InterruptedException {
    executors.close();
  }

  @Test
  void aQuestionNobodyAnswersFailsAfterTheQuestionTimeoutAndItsClientIsReplaced() throws Exception {
    AtomicInteger built = new AtomicInteger();
    try (RaftClientPool pool = new RaftClientPool(1, leader -> {
      built.incrementAndGet();
      // every request stays unanswered, as one sent to a paused leader
      return FakeRaftClient.answering(CompletableFuture::new);
    }, 60_000, executors)) {
      RatisProposer proposer = new RatisProposer(pool, 10_000, 200, executors.replies(), () -> EntryCodec.MAX_VERSION);
      int before = built.get();
      CompletableFuture<?> asked = proposer.ask(Confirm.newBuilder().addRenewLeaseIds(7));
      assertThatThrownBy(() -> asked.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(Proposer.UnavailableException.class);
      // the client that sent it may be stuck on a leader that is gone: the next question goes through a fresh one
      assertThat(built.get()).isGreaterThan(before);
    }
  }
}
