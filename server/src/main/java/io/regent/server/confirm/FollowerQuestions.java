package io.regent.server.confirm;

import io.regent.statemachine.proto.Result;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * A follower's questions to the leader ({@link LeaderQuery}): the leader answers a follower's requests under its
 * own leadership lease as it answers its own clients (docs/architecture.md §8.1), so a keepalive or linearizable
 * read on a follower costs one round trip instead of a log entry. A request the leader does not answer (it holds
 * no lease, or no leader answered in time) goes into one of this node's own {@link LeaderRounds}.
 *
 * <p>Thread-safe; one question is in flight at a time per node, and a question stuck on a leader that is gone
 * is abandoned when this node follows another ({@link #leaderChanged}).
 */
final class FollowerQuestions {
  private final LeaderQuery leader;
  private final LeaderRounds rounds;
  /**
   * Requests whose question to the leader has no answer yet; taken out by the answer or by a leader change,
   * whichever comes first ({@link #leaderChanged}). Guarded by this.
   */
  private final Set<PendingConfirm> asking = Collections.newSetFromMap(new IdentityHashMap<>());
  /** Of {@link #asking}, those waiting for the next question (one is in flight). Guarded by this. */
  private final List<PendingConfirm> toAsk = new ArrayList<>();
  /** Whether a question to the leader is in flight. Guarded by this. */
  private boolean questionInFlight;
  /** Counts leader changes: a question's answer continues only the chain of questions of its own count. */
  private long questions;

  /**
   * @param leader asks the leader to answer under its lease
   * @param rounds this node's rounds, for the requests the leader does not answer
   */
  FollowerQuestions(LeaderQuery leader, LeaderRounds rounds) {
    this.leader = leader;
    this.rounds = rounds;
  }

  /**
   * Asks the leader to confirm {@code p}: the leader's answer under its lease began after this request arrived,
   * as a round would. @return {@code p}'s future
   */
  CompletableFuture<Confirmation> ask(PendingConfirm p) {
    boolean ask;
    long generation;
    synchronized (this) {
      asking.add(p);
      toAsk.add(p);
      ask = !questionInFlight;
      questionInFlight = true;
      generation = questions;
    }
    if (ask) {
      askNext(generation);
    }
    return p.future();
  }

  /**
   * Sends one question to the leader for every follower request waiting for one, as one round does for the
   * requests at the leader: while a question is in flight, requests gather for the next, which began after they
   * arrived. One question at a time keeps a frozen leader from holding more than one Ratis client slot and the
   * thread that would wait for the next (Ratis's async client blocks its caller once its outstanding requests
   * are used up). A late answer to a question {@link #leaderChanged} moved is dropped: its requests are in a
   * round by then.
   */
  private void askNext(long generation) {
    List<PendingConfirm> batch;
    synchronized (this) {
      if (generation != questions) {
        return; // a leader change started over; the questions of its generation are someone else's
      }
      batch = PendingConfirm.take(toAsk);
      if (batch.isEmpty()) {
        questionInFlight = false;
        return;
      }
    }
    CompletableFuture<Optional<Result>> asked;
    try {
      asked = leader.ask(PendingConfirm.entry(batch));
    } catch (RuntimeException e) {
      // the requests must still end: through a round, as after any failed question
      asked = CompletableFuture.failedFuture(e);
    }
    asked.whenComplete((answer, err) -> {
      List<PendingConfirm> still = new ArrayList<>(batch.size());
      synchronized (this) {
        for (PendingConfirm p : batch) {
          if (asking.remove(p)) {
            still.add(p);
          }
        }
      }
      if (err == null && answer.isPresent()) {
        Confirmation c = Confirmation.of(answer.get());
        still.forEach(p -> p.future().complete(c));
      } else {
        still.forEach(rounds::enqueue);
      }
      askNext(generation);
    });
  }

  /**
   * The leader this node follows changed: takes out every request whose question has no answer yet (the caller
   * puts them into a round) and starts the chain of questions over, so that a late answer from the old leader
   * is dropped and the next request asks the new leader at once.
   *
   * @return the requests taken out, in no particular order
   */
  synchronized List<PendingConfirm> leaderChanged() {
    List<PendingConfirm> taken = new ArrayList<>(asking);
    asking.clear();
    toAsk.clear();
    questionInFlight = false;
    questions++;
    return taken;
  }
}
