package io.regent.server.raft;

import io.regent.statemachine.proto.Confirm;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
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
 * <p>Thread-safe; one round is in flight at a time per node.
 */
public final class Confirmer {
  /**
   * Names whose holder one round reports, at most: a holder's value is up to 64 KiB, so this keeps a round's
   * reply under ~9 MB, well inside gRPC's and Ratis's message limits.
   */
  public static final int MAX_NAMES_PER_ROUND = 128;

  private final EntrySubmitter proposer;
  private List<Pending> waiting = new ArrayList<>();
  private boolean inFlight;

  /** @param proposer submits the Confirm entries */
  public Confirmer(EntrySubmitter proposer) {
    this.proposer = proposer;
  }

  /**
   * Waits for a confirmation round that begins after this call.
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
    Pending p = new Pending(renew, query, names, new CompletableFuture<>());
    boolean start;
    synchronized (this) {
      waiting.add(p);
      start = !inFlight;
      inFlight = true;
    }
    if (start) {
      startRound();
    }
    return p.future;
  }

  private void startRound() {
    List<Pending> batch;
    synchronized (this) {
      batch = waiting;
      waiting = new ArrayList<>();
    }
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
    Confirm.Builder c = Confirm.newBuilder().addAllRenewLeaseIds(renew).addAllQueryLeaseIds(query)
        .addAllQueryNames(names);
    CompletableFuture<Result> proposed;
    try {
      proposed = proposer.propose(LogEntry.newBuilder().setConfirm(c));
    } catch (RuntimeException e) {
      // a round must always end, or every later confirmation on this node would wait forever
      proposed = CompletableFuture.failedFuture(e);
    }
    proposed.whenComplete((result, err) -> {
      Confirmation round = err == null ? Confirmation.of(result) : null;
      for (Pending p : batch) {
        if (err != null) {
          p.future.completeExceptionally(err);
        } else {
          p.future.complete(round);
        }
      }
      boolean again;
      synchronized (this) {
        again = !waiting.isEmpty();
        inFlight = again;
      }
      if (again) {
        startRound();
      }
    });
  }

  private record Pending(List<Long> renew, List<Long> query, List<String> names,
                         CompletableFuture<Confirmation> future) {
  }
}
