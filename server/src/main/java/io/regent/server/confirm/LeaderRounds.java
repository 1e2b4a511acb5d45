package io.regent.server.confirm;

import io.regent.server.replication.Proposer;
import io.regent.statemachine.proto.Confirm;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The confirmation rounds this node proposes, and the answers under its leadership lease: one Confirm entry per
 * round answers every request that arrived before the round began, and no request is answered by a round that
 * began before it arrived (docs/architecture.md §8). A request that arrives while this node holds its lease is
 * answered at once from its own state ({@link LocalConfirm}), and every round it commits as the ready leader
 * renews the lease (§8.1). The leader also answers its followers' questions here ({@link #answerForFollower}).
 *
 * <p>Thread-safe; one round is in flight at a time per node.
 */
final class LeaderRounds {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderRounds.class);

  private final Proposer proposer;
  private final List<PendingConfirm> waiting = new ArrayList<>();
  /** The round whose outcome answers its requests, or null when none is in flight. */
  private Round inFlight;

  private final LeadershipLease lease;
  private final Confirmer.LocalAnswer local;

  /**
   * @param proposer submits the Confirm entries
   * @param lease the leadership lease, or {@code null} for none (strict)
   * @param local answers a Confirm from the leader's own state under the lease (required with {@code lease})
   */
  LeaderRounds(Proposer proposer, LeadershipLease lease, Confirmer.LocalAnswer local) {
    this.proposer = proposer;
    this.lease = lease;
    this.local = local;
  }

  /**
   * The leader's answer to a follower's {@link LeaderQuery}: as for its own clients — at once under its
   * leadership lease, else by its next round (which began after the request arrived, and renews the lease:
   * rounds that followers propose do not, as this node did not time them) — or {@code null} when this node is
   * not the ready leader with a lease rule (the follower then proposes its own round).
   */
  CompletableFuture<Confirmation> answerForFollower(Confirm confirm) {
    List<Long> renew = confirm.getRenewLeaseIdsList();
    List<Long> query = confirm.getQueryLeaseIdsList();
    List<String> names = confirm.getQueryNamesList();
    Confirmation leased = underLease(renew, query, names);
    if (leased != null) {
      return CompletableFuture.completedFuture(leased);
    }
    if (lease == null || !lease.readyLeader()) {
      return CompletableFuture.completedFuture(null);
    }
    return enqueue(new PendingConfirm(renew, query, names, new CompletableFuture<>()));
  }

  /**
   * The answer under the leadership lease, or {@code null} when this node does not hold it now. A lease in its
   * second half is renewed by a round that nobody waits for, so that steady traffic never waits for one.
   */
  Confirmation underLease(List<Long> renew, List<Long> query, List<String> names) {
    if (lease == null) {
      return null;
    }
    long term = lease.heldTerm();
    if (term < 0) {
      return null;
    }
    Confirmation c = local.confirm(term, PendingConfirm.entry(List.of(new PendingConfirm(renew, query, names, null))));
    if (c == null || lease.heldTerm() != term) {
      return null; // the lease ended while the state was read: it may not reflect a new leader's writes
    }
    if (lease.remainingNanos() < lease.lengthNanos() / 2) {
      synchronized (this) {
        if (inFlight != null) {
          return c;
        }
      }
      enqueue(new PendingConfirm(List.of(), List.of(), List.of(), new CompletableFuture<>()));
    }
    return c;
  }

  /** Adds {@code p} to the next round, starting it when none is in flight; @return {@code p}'s future */
  CompletableFuture<Confirmation> enqueue(PendingConfirm p) {
    Round start = null;
    synchronized (this) {
      waiting.add(p);
      if (inFlight == null) {
        start = nextRound();
      }
    }
    if (start != null) {
      propose(start);
    }
    return p.future();
  }

  /**
   * Abandons the round in flight, if any, and starts a new one at once with its requests, the waiting ones, and
   * {@code asked} (a follower's requests whose question to the old leader was stuck); see
   * {@link Confirmer#leaderChanged} for why. Does nothing when no round is in flight and {@code asked} is empty.
   */
  void restart(List<PendingConfirm> asked) {
    Round next;
    synchronized (this) {
      if (inFlight == null && asked.isEmpty()) {
        return;
      }
      if (inFlight != null) {
        waiting.addAll(0, inFlight.batch);
      }
      waiting.addAll(asked);
      next = nextRound();
    }
    LOG.info("leader changed or became ready: confirmation round of {} requests restarted at the leader"
        + " ({} of them had asked the old leader)", next.batch.size(), asked.size());
    propose(next);
  }

  /** Takes every waiting request into a new round, which becomes the one in flight. Caller holds the lock. */
  private Round nextRound() {
    Round r = new Round(PendingConfirm.take(waiting));
    inFlight = r;
    return r;
  }

  private void propose(Round round) {
    Confirm.Builder c = PendingConfirm.entry(round.batch);
    LeadershipLease.Start start = lease == null ? null : lease.begin();
    CompletableFuture<Result> proposed;
    try {
      proposed = proposer.propose(LogEntry.newBuilder().setConfirm(c));
    } catch (RuntimeException e) {
      // a round must always end, or every later confirmation on this node would wait forever
      proposed = CompletableFuture.failedFuture(e);
    }
    proposed.whenComplete((result, err) -> {
      if (err == null && start != null) {
        lease.committed(start, result.getTerm());
      }
      ended(round, result, err);
    });
  }

  private void ended(Round round, Result result, Throwable err) {
    boolean current;
    Round next = null;
    synchronized (this) {
      current = inFlight == round;
      if (current) {
        inFlight = null;
        if (!waiting.isEmpty()) {
          next = nextRound();
        }
      }
    }
    if (err == null) {
      Confirmation answer = Confirmation.of(result);
      round.batch.forEach(p -> p.future().complete(answer));
    } else if (current) {
      round.batch.forEach(p -> p.future().completeExceptionally(err));
    } // else: an abandoned round's failure; its requests wait for the round that replaced it
    if (next != null) {
      propose(next);
    }
  }

  private record Round(List<PendingConfirm> batch) {
  }
}
