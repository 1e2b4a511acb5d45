package io.regent.server.api;

import io.regent.server.replication.Proposer;
import io.regent.statemachine.proto.GroupRelease;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.ReleaseSet;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.proto.SetResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Batches the partition releases that reach this node into one GroupRelease entry per round: a rebalance
 * asks many members to release at about the same time, and one entry then moves all their partitions
 * (docs/ownership.md). One round is in flight at a time; requests that arrive meanwhile form the next.
 * Each request stays one all-or-nothing {@code ReleaseSet}, judged on its own at apply.
 *
 * <p>Thread-safe.
 */
final class ReleaseBatcher {
  /** Release requests one entry carries at most (each up to 65 536 partitions). */
  static final int MAX_SETS_PER_ENTRY = 256;

  private final Proposer proposer;
  private List<Pending> waiting = new ArrayList<>();
  private boolean inFlight;

  ReleaseBatcher(Proposer proposer) {
    this.proposer = proposer;
  }

  /**
   * Proposes {@code set} in the next round.
   *
   * @return the set's own result and the entry's index; fails as {@link Proposer#propose} does
   */
  CompletableFuture<Released> release(ReleaseSet set) {
    Pending p = new Pending(set, new CompletableFuture<>());
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
      int n = Math.min(waiting.size(), MAX_SETS_PER_ENTRY);
      batch = new ArrayList<>(waiting.subList(0, n));
      waiting = new ArrayList<>(waiting.subList(n, waiting.size()));
    }
    GroupRelease.Builder entry = GroupRelease.newBuilder();
    batch.forEach(p -> entry.addSets(p.set));
    CompletableFuture<Result> proposed;
    try {
      // one entry for many requests: an id of this node's own, so that its re-submission applies once (docs/api.md
      // "Request ids")
      proposed = proposer.propose(RequestId.own().stamp(LogEntry.newBuilder().setGroupRelease(entry)));
    } catch (RuntimeException e) {
      proposed = CompletableFuture.failedFuture(e); // a round must end, or later releases would wait forever
    }
    proposed.whenComplete((result, err) -> {
      for (int i = 0; i < batch.size(); i++) {
        Pending p = batch.get(i);
        if (err != null) {
          p.future.completeExceptionally(err);
        } else if (result.getSetsCount() != batch.size()) {
          // refused as a whole (e.g. an unknown entry version): every set gets that answer
          p.future.complete(new Released(SetResult.newBuilder().setCode(result.getCode())
              .setMessage(result.getMessage()).build(), result.getIndex()));
        } else {
          p.future.complete(new Released(result.getSets(i), result.getIndex()));
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

  /** A release request's outcome: its own result and the index of the entry that carried it. */
  record Released(SetResult result, long index) {
  }

  private record Pending(ReleaseSet set, CompletableFuture<Released> future) {
  }
}
