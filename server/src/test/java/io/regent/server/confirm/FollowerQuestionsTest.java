package io.regent.server.confirm;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.statemachine.proto.Confirm;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A follower's questions to the leader ({@link FollowerQuestions}, driven through the {@link Confirmer} façade):
 * answered by the leader under its lease without an entry, else by a round; one question in flight at a time,
 * and moved into a round when the leader changes.
 */
class FollowerQuestionsTest {
  /** A follower's lease: never held (it is not the ready leader), so a request asks the leader first. */
  private static LeadershipLease followerLease() {
    return new LeadershipLease(() -> 1, new LeadershipLease.Leadership() {
      @Override
      public long readyTerm() {
        return -1;
      }

      @Override
      public long currentTerm() {
        return 4;
      }
    }, 1_000, 0.8);
  }

  @Test
  void onAFollowerTheLeadersAnswerUnderItsLeaseNeedsNoEntry() throws Exception {
    List<LogEntry> proposed = new CopyOnWriteArrayList<>();
    List<LogEntry> asked = new CopyOnWriteArrayList<>();
    Confirmer confirmer = new Confirmer(entry -> {
      proposed.add(entry.build());
      return CompletableFuture.completedFuture(Result.newBuilder().setIndex(1).setTerm(4).build());
    }, followerLease(), (term, entry) -> null, confirm -> {
      asked.add(LogEntry.newBuilder().setConfirm(confirm).build());
      return CompletableFuture.completedFuture(Optional.of(Result.newBuilder().setIndex(42).build()));
    });
    assertThat(confirmer.confirm(List.of(7L), List.of()).get(5, TimeUnit.SECONDS).getIndex()).isEqualTo(42);
    assertThat(proposed).isEmpty();
    assertThat(asked).singleElement().satisfies(e -> assertThat(e.getConfirm().getRenewLeaseIdsList())
        .containsExactly(7L));
  }

  @Test
  void onAFollowerARequestWaitsForARoundWhenTheLeaderHoldsNoLeaseOrDoesNotAnswer() throws Exception {
    List<LogEntry> proposed = new CopyOnWriteArrayList<>();
    AtomicInteger asks = new AtomicInteger();
    Confirmer confirmer = new Confirmer(entry -> {
      proposed.add(entry.build());
      return CompletableFuture.completedFuture(Result.newBuilder().setIndex(proposed.size()).setTerm(4).build());
    }, followerLease(), (term, entry) -> null, confirm -> asks.incrementAndGet() == 1
        ? CompletableFuture.completedFuture(Optional.empty())
        : CompletableFuture.failedFuture(new IllegalStateException("no leader")));
    assertThat(confirmer.confirm(List.of(), List.of()).get(5, TimeUnit.SECONDS).getIndex()).isEqualTo(1);
    assertThat(confirmer.confirm(List.of(), List.of()).get(5, TimeUnit.SECONDS).getIndex()).isEqualTo(2);
    assertThat(asks).hasValue(2);
    assertThat(proposed).hasSize(2);
  }

  /**
   * A follower's question to a leader that was then frozen hangs for the Ratis request timeout (3 s, the
   * minimum TTL); when this node follows a new leader the request goes into a round at once (a clean-clone
   * LeaderPauseTest run, lease rule: leases 3 and 6, whose keepalives asked the frozen node 1 s before the new
   * leader was ready, expired 3.0 s after it was).
   */
  @Test
  void onAFollowerAQuestionToAnOldLeaderIsMovedIntoARoundWhenTheLeaderChanges() throws Exception {
    List<LogEntry> proposed = new CopyOnWriteArrayList<>();
    List<CompletableFuture<Optional<Result>>> asked = new CopyOnWriteArrayList<>();
    Confirmer confirmer = new Confirmer(entry -> {
      proposed.add(entry.build());
      return CompletableFuture.completedFuture(Result.newBuilder().setIndex(9).setTerm(5).build());
    }, followerLease(), (term, entry) -> null, confirm -> {
      CompletableFuture<Optional<Result>> f = new CompletableFuture<>();
      asked.add(f);
      return f;
    });
    CompletableFuture<Result> renewal = confirmer.confirm(List.of(3L), List.of());
    assertThat(asked).hasSize(1);
    assertThat(renewal).isNotDone();

    confirmer.leaderChanged();
    // before the fix it waited for the old leader's answer or the ask's timeout
    assertThat(renewal.get(5, TimeUnit.SECONDS).getIndex()).isEqualTo(9);
    assertThat(proposed).singleElement().satisfies(e -> assertThat(e.getConfirm().getRenewLeaseIdsList())
        .containsExactly(3L));

    // the old leader's late failure starts no second round
    asked.get(0).completeExceptionally(new IllegalStateException("request timeout"));
    assertThat(proposed).hasSize(1);
  }

  /**
   * A frozen leader holds one question, not one per request: with a question per request, each took a slot of
   * Ratis's async client, and once those were used up the gRPC threads that asked blocked in Ratis (issue 22).
   * Requests that arrive while a question is in flight go together in the next one, which began after them.
   */
  @Test
  void onAFollowerRequestsArrivingWhileAQuestionIsInFlightGoTogetherInTheNextQuestion() throws Exception {
    List<Confirm> asked = new CopyOnWriteArrayList<>();
    List<CompletableFuture<Optional<Result>>> answers = new CopyOnWriteArrayList<>();
    Confirmer confirmer = new Confirmer(entry -> CompletableFuture.failedFuture(new IllegalStateException("none")),
        followerLease(), (term, entry) -> null, confirm -> {
          asked.add(confirm.build());
          CompletableFuture<Optional<Result>> f = new CompletableFuture<>();
          answers.add(f);
          return f;
        });
    List<CompletableFuture<Result>> renewals = new ArrayList<>();
    for (long id = 1; id <= 50; id++) {
      renewals.add(confirmer.confirm(List.of(id), List.of()));
    }
    assertThat(asked).as("questions in flight").hasSize(1);
    assertThat(asked.get(0).getRenewLeaseIdsList()).containsExactly(1L);

    answers.get(0).complete(Optional.of(Result.newBuilder().setIndex(7).build()));
    assertThat(renewals.get(0).get(5, TimeUnit.SECONDS).getIndex()).isEqualTo(7);
    assertThat(renewals.get(1)).isNotDone();
    assertThat(asked).hasSize(2);
    assertThat(asked.get(1).getRenewLeaseIdsList()).hasSize(49).doesNotContain(1L);

    answers.get(1).complete(Optional.of(Result.newBuilder().setIndex(8).build()));
    for (CompletableFuture<Result> r : renewals.subList(1, 50)) {
      assertThat(r.get(5, TimeUnit.SECONDS).getIndex()).isEqualTo(8);
    }
    assertThat(asked).hasSize(2);
  }

  /** A leader change while a question is stuck moves its requests and the gathered ones into a round at once. */
  @Test
  void aLeaderChangeMovesTheStuckQuestionAndTheGatheredRequestsIntoARoundAndAsksAfreshAfter() throws Exception {
    List<LogEntry> proposed = new CopyOnWriteArrayList<>();
    List<CompletableFuture<Optional<Result>>> answers = new CopyOnWriteArrayList<>();
    Confirmer confirmer = new Confirmer(entry -> {
      proposed.add(entry.build());
      return CompletableFuture.completedFuture(Result.newBuilder().setIndex(9).setTerm(5).build());
    }, followerLease(), (term, entry) -> null, confirm -> {
      CompletableFuture<Optional<Result>> f = new CompletableFuture<>();
      answers.add(f);
      return f;
    });
    CompletableFuture<Result> first = confirmer.confirm(List.of(1L), List.of());
    CompletableFuture<Result> gathered = confirmer.confirm(List.of(2L), List.of());
    confirmer.leaderChanged();
    assertThat(first.get(5, TimeUnit.SECONDS).getIndex()).isEqualTo(9);
    assertThat(gathered.get(5, TimeUnit.SECONDS).getIndex()).isEqualTo(9);
    assertThat(proposed).singleElement().satisfies(e -> assertThat(e.getConfirm().getRenewLeaseIdsList())
        .containsExactlyInAnyOrder(1L, 2L));

    // a request after the change asks the new leader at once, not behind the old leader's stuck question
    CompletableFuture<Result> after = confirmer.confirm(List.of(3L), List.of());
    assertThat(answers).hasSize(2);
    answers.get(1).complete(Optional.of(Result.newBuilder().setIndex(10).build()));
    assertThat(after.get(5, TimeUnit.SECONDS).getIndex()).isEqualTo(10);
    // the old leader's late answer changes nothing and asks nothing more
    answers.get(0).complete(Optional.of(Result.newBuilder().setIndex(3).build()));
    assertThat(answers).hasSize(2);
  }
}

