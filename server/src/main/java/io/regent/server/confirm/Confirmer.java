package io.regent.server.confirm;

import io.regent.server.replication.Proposer;
import io.regent.statemachine.proto.Confirm;
import io.regent.statemachine.proto.Result;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Batched leadership confirmations: one Confirm entry per round answers every request that arrived before
 * the round began, and no request is answered by a round that began before it arrived.
 *
 * <p>Why an entry and not Ratis's ReadIndex: Ratis 3.3.0 answers a ReadIndex at once when the commit index
 * has not moved since its last acknowledged heartbeat round ({@code ReadIndexHeartbeats}), so an isolated
 * old leader could confirm itself for up to an election timeout. A committed entry of the proposer's term
 * is a fresh majority round by construction (Raft §5.4; docs/architecture.md §8, docs/ratis.md §2).
 *
 * <p>With a {@link LeadershipLease}, a request that arrives while this node holds it is answered at once from
 * its own state ({@link LocalConfirm}), and every round this node commits as the ready leader renews it. On a
 * follower, a request first asks the leader ({@link LeaderQuery}), which answers the same way under its own
 * lease ({@link #answerForFollower}); only when it holds none does the request wait for a round.
 *
 * <p>Thread-safe; one round is in flight at a time per node, and a round or a follower's question stuck on a
 * leader that is gone is abandoned when this node follows another ({@link #leaderChanged}).
 *
 * <p>A façade over two jobs: the rounds and the answers under the lease ({@link LeaderRounds}), and a follower's
 * questions to the leader ({@link FollowerQuestions}); it decides which one a request goes to.
 */
public final class Confirmer {
  /**
   * Names whose holder one round reports, at most: a holder's value is up to 64 KiB, so this keeps a round's
   * reply under ~9 MB, well inside gRPC's and Ratis's message limits.
   */
  public static final int MAX_NAMES_PER_ROUND = 128;
  /**
   * Bytes one round's Confirm entry may carry, about (lease ids and names; a request is never split): many
   * KeepAliveMany calls of 10 000 ids each arriving during one round would otherwise make the next entry
   * megabytes long, to be written and replicated before any of them is answered. Requests beyond it wait for
   * the round after. The first request of a round always goes in (the API bounds each request).
   */
  public static final long MAX_ROUND_BYTES = 256 * 1024;

  private final LeaderRounds rounds;
  /** A follower's questions to the leader, or null when a follower always waits for a round. */
  private final FollowerQuestions questions;
  private final LeadershipLease lease;

  /** Answers a Confirm from the leader's own state, as {@link LocalConfirm#confirm} does. */
  @FunctionalInterface
  public interface LocalAnswer {
    /** The round's answer as the ready leader of {@code term}, or {@code null} when a round is needed. */
    Confirmation confirm(long term, Confirm.Builder entry);
  }

  /** A confirmer that always runs a round ({@code --confirm strict}). @param proposer submits the Confirm entries */
  public Confirmer(Proposer proposer) {
    this(proposer, null, null, null);
  }

  /**
   * A confirmer that answers at once while this node holds its leadership lease, and renews the lease with
   * every round it commits as the ready leader.
   *
   * @param lease the leadership lease, or {@code null} for none (strict)
   * @param local answers a Confirm from the leader's own state under the lease (required with {@code lease})
   * @param leader asks the leader to answer under its lease when this node is not the ready leader, or
   *     {@code null}: a follower always waits for a round
   */
  public Confirmer(Proposer proposer, LeadershipLease lease, LocalAnswer local, LeaderQuery leader) {
    this.rounds = new LeaderRounds(proposer, lease, local);
    this.questions = leader == null ? null : new FollowerQuestions(leader, rounds);
    this.lease = lease;
  }

  /**
   * Waits for a confirmation round that begins after this call, or answers at once from the leader's own
   * state while this node holds its leadership lease (docs/architecture.md §8.1).
   *
   * @param renew leases whose keepalive this round answers (the ready leader renews them)
   * @param query leases whose remaining time to report
   * @return the Confirm result: its index (read at or above it for linearizability) and lease statuses
   */
  public CompletableFuture<Result> confirm(List<Long> renew, List<Long> query) {
    return confirmLeases(renew, query).thenApply(Confirmation::result);
  }

  /**
   * As {@link #confirm}, with the round's lease statuses indexed by id (for keepalives: a round can carry
   * thousands of leases).
   */
  public CompletableFuture<Confirmation> confirmLeases(List<Long> renew, List<Long> query) {
    return confirmRound(renew, query, List.of());
  }

  /**
   * As {@link #confirm}, and the round's entry also reports the holder of each of {@code names} as of its
   * index (answered by the proposer's reply, see {@code Confirm.query_names}). A round carries at most
   * {@link #MAX_NAMES_PER_ROUND} names: a name left out has no answer in the {@link Confirmation}, and its
   * reader reads its replica once it has applied the round.
   *
   * @return the round; fails, as {@link #confirm} does, with {@link Proposer.UnavailableException} when the
   *     Confirm entry could not be committed in time (an isolated or deposed leader: the read is refused)
   */
  public CompletableFuture<Confirmation> confirmNames(List<String> names) {
    return confirmRound(List.of(), List.of(), names);
  }

  private CompletableFuture<Confirmation> confirmRound(List<Long> renew, List<Long> query, List<String> names) {
    Confirmation leased = rounds.underLease(renew, query, names);
    if (leased != null) {
      return CompletableFuture.completedFuture(leased);
    }
    PendingConfirm p = new PendingConfirm(renew, query, names, new CompletableFuture<>());
    if (questions == null || lease == null || lease.readyLeader()) {
      return rounds.enqueue(p);
    }
    // a follower: the leader's answer under its lease began after this request arrived, as a round would
    return questions.ask(p);
  }

  /**
   * The leader's answer to a follower's {@link LeaderQuery}: as for its own clients — at once under its
   * leadership lease, else by its next round (which began after the request arrived, and renews the lease:
   * rounds that followers propose do not, as this node did not time them) — or {@code null} when this node is
   * not the ready leader with a lease rule (the follower then proposes its own round).
   */
  public CompletableFuture<Confirmation> answerForFollower(Confirm confirm) {
    return rounds.answerForFollower(confirm);
  }

  /**
   * The leader this node follows changed, or this node became the ready leader (its own round, sent before it
   * was ready, may hang on a leader-not-ready reply: docs/ratis.md §10): the round in flight is abandoned, not
   * waited out. It was sent to the
   * old leader, and when that one is paused rather than dead the Ratis client waits for its request timeout
   * and a channel close (seconds) while the new leader's lease deadlines run. Its requests go at once into a
   * new round, through clients that already follow the new leader: that round begins after they arrived, so it
   * answers them as well. The abandoned round may still commit later (a Confirm changes no replicated state);
   * if it succeeds first, its answer is as good.
   *
   * <p>A follower's questions to the old leader ({@link LeaderQuery}) are stuck the same way, each for up to the
   * proposal timeout (docs/ratis.md §10). They go into the same new round: it too began after they arrived. A
   * late answer to such a question is dropped.
   */
  public void leaderChanged() {
    rounds.restart(questions == null ? List.of() : questions.leaderChanged());
  }
}
