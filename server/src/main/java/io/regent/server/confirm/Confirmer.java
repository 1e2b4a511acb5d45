package io.regent.server.confirm;

import io.regent.server.replication.Proposer;
import io.regent.statemachine.proto.Confirm;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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

  private static final Logger LOG = LoggerFactory.getLogger(Confirmer.class);

  private final Proposer proposer;
  private final List<Pending> waiting = new ArrayList<>();
  /** The round whose outcome answers its requests, or null when none is in flight. */
  private Round inFlight;
  /**
   * A follower's requests whose question to the leader ({@link LeaderQuery}) has no answer yet; taken out by the
   * answer or by a leader change, whichever comes first ({@link #leaderChanged}). Guarded by this.
   */
  private final Set<Pending> asking = Collections.newSetFromMap(new IdentityHashMap<>());
  /** Of {@link #asking}, those waiting for the next question (one is in flight). Guarded by this. */
  private final List<Pending> toAsk = new ArrayList<>();
  /** Whether a question to the leader is in flight. Guarded by this. */
  private boolean questionInFlight;
  /** Counts leader changes: a question's answer continues only the chain of questions of its own count. */
  private long questions;

  private final LeadershipLease lease;
  private final LocalAnswer local;
  private final LeaderQuery leader;

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
    this.proposer = proposer;
    this.lease = lease;
    this.local = local;
    this.leader = leader;
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
    Confirmation leased = underLease(renew, query, names);
    if (leased != null) {
      return CompletableFuture.completedFuture(leased);
    }
    Pending p = new Pending(renew, query, names, new CompletableFuture<>());
    if (leader == null || lease == null || lease.readyLeader()) {
      return enqueue(p);
    }
    // a follower: the leader's answer under its lease began after this request arrived, as a round would
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
    return p.future;
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
    List<Pending> batch;
    synchronized (this) {
      if (generation != questions) {
        return; // a leader change started over; the questions of its generation are someone else's
      }
      batch = take(toAsk);
      if (batch.isEmpty()) {
        questionInFlight = false;
        return;
      }
    }
    CompletableFuture<Optional<Result>> asked;
    try {
      asked = leader.ask(entry(batch));
    } catch (RuntimeException e) {
      // the requests must still end: through a round, as after any failed question
      asked = CompletableFuture.failedFuture(e);
    }
    asked.whenComplete((answer, err) -> {
      List<Pending> still = new ArrayList<>(batch.size());
      synchronized (this) {
        for (Pending p : batch) {
          if (asking.remove(p)) {
            still.add(p);
          }
        }
      }
      if (err == null && answer.isPresent()) {
        Confirmation c = Confirmation.of(answer.get());
        still.forEach(p -> p.future.complete(c));
      } else {
        still.forEach(this::enqueue);
      }
      askNext(generation);
    });
  }

  /**
   * The leader's answer to a follower's {@link LeaderQuery}: as for its own clients — at once under its
   * leadership lease, else by its next round (which began after the request arrived, and renews the lease:
   * rounds that followers propose do not, as this node did not time them) — or {@code null} when this node is
   * not the ready leader with a lease rule (the follower then proposes its own round).
   */
  public CompletableFuture<Confirmation> answerForFollower(Confirm confirm) {
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
    return enqueue(new Pending(renew, query, names, new CompletableFuture<>()));
  }

  /**
   * The answer under the leadership lease, or {@code null} when this node does not hold it now. A lease in its
   * second half is renewed by a round that nobody waits for, so that steady traffic never waits for one.
   */
  private Confirmation underLease(List<Long> renew, List<Long> query, List<String> names) {
    if (lease == null) {
      return null;
    }
    long term = lease.heldTerm();
    if (term < 0) {
      return null;
    }
    Confirmation c = local.confirm(term, entry(List.of(new Pending(renew, query, names, null))));
    if (c == null || lease.heldTerm() != term) {
      return null; // the lease ended while the state was read: it may not reflect a new leader's writes
    }
    if (lease.remainingNanos() < lease.lengthNanos() / 2) {
      synchronized (this) {
        if (inFlight != null) {
          return c;
        }
      }
      enqueue(new Pending(List.of(), List.of(), List.of(), new CompletableFuture<>()));
    }
    return c;
  }

  private CompletableFuture<Confirmation> enqueue(Pending p) {
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
    return p.future;
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
    Round next;
    int asked;
    synchronized (this) {
      if (inFlight == null && asking.isEmpty()) {
        return;
      }
      if (inFlight != null) {
        waiting.addAll(0, inFlight.batch);
      }
      asked = asking.size();
      waiting.addAll(asking);
      asking.clear();
      toAsk.clear();
      questionInFlight = false;
      questions++;
      next = nextRound();
    }
    LOG.info("leader changed or became ready: confirmation round of {} requests restarted at the leader"
        + " ({} of them had asked the old leader)", next.batch.size(), asked);
    propose(next);
  }

  /** Takes every waiting request into a new round, which becomes the one in flight. Caller holds the lock. */
  private Round nextRound() {
    Round r = new Round(take(waiting));
    inFlight = r;
    return r;
  }

  /**
   * Removes from the front of {@code queue} the requests that fit one Confirm of {@link #MAX_ROUND_BYTES} (at
   * least one when there is one); the rest go into the next, which also begins after they arrived. Caller holds
   * the lock.
   */
  private static List<Pending> take(List<Pending> queue) {
    int taken = 0;
    long bytes = 0;
    while (taken < queue.size()) {
      long more = queue.get(taken).bytes();
      if (taken > 0 && bytes + more > MAX_ROUND_BYTES) {
        break;
      }
      bytes += more;
      taken++;
    }
    List<Pending> batch = new ArrayList<>(queue.subList(0, taken));
    queue.subList(0, taken).clear();
    return batch;
  }

  private void propose(Round round) {
    Confirm.Builder c = entry(round.batch);
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

  /** The Confirm entry answering {@code batch}: its lease ids once each, at most {@link #MAX_NAMES_PER_ROUND} names. */
  private static Confirm.Builder entry(List<Pending> batch) {
    Set<Long> renew = new LinkedHashSet<>();
    Set<Long> query = new LinkedHashSet<>();
    Set<String> names = new LinkedHashSet<>();
    batch.forEach(p -> {
      renew.addAll(p.renew);
      query.addAll(p.query);
      for (String n : p.names) {
        if (names.size() < MAX_NAMES_PER_ROUND) {
          names.add(n);
        }
      }
    });
    return Confirm.newBuilder().addAllRenewLeaseIds(renew).addAllQueryLeaseIds(query).addAllQueryNames(names);
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
      round.batch.forEach(p -> p.future.complete(answer));
    } else if (current) {
      round.batch.forEach(p -> p.future.completeExceptionally(err));
    } // else: an abandoned round's failure; its requests wait for the round that replaced it
    if (next != null) {
      propose(next);
    }
  }

  private record Round(List<Pending> batch) {
  }

  private record Pending(List<Long> renew, List<Long> query, List<String> names,
                         CompletableFuture<Confirmation> future) {
    /** Upper bound of what this request adds to a Confirm entry, bytes (protobuf: tag + varint, tag + length). */
    long bytes() {
      long b = 11L * (renew.size() + query.size());
      for (String n : names) {
        b += 3 + n.length() * 3L; // a UTF-16 char is at most 3 UTF-8 bytes
      }
      return b;
    }
  }
}
