package io.regent.server.api;

import io.grpc.Status;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.ChangeEvent.Kind;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.Holder;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.store.StateTxn;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * Waits, on this node's applied events of one lease ({@link EventHub#listenToLease}), until the lease is elected to
 * a name or ends.
 *
 * <p>Subscribed before the Campaign is proposed so no event is missed; events are buffered until the
 * Campaign's own index is known and only events from that index on count (an election inside the Campaign's own
 * batch entry included), so an older election of the same lease is never mistaken for this one. A snapshot installed on this node replaces the events of the entries it
 * covers: the waiter then judges from the installed state instead (elected, lease gone, or still waiting).
 *
 * <p>The outcome is settled on {@code executor}, not on the thread that learned it: that is the apply thread,
 * and settling it answers the caller's gRPC call (docs/architecture.md §9). A listener the hub drops ends the
 * campaign with INTERNAL.
 */
final class CampaignWaiter implements Consumer<ChangeEvent>, EventHub.InstallListener, EventHub.Droppable {
  private final EventHub hub;
  private final String name;
  private final long leaseId;
  private final Executor executor;
  private final CompletableFuture<Holder> elected = new CompletableFuture<>();
  private final List<ChangeEvent> early = new ArrayList<>();
  private long afterIndex = -1;
  /** The last snapshot installed before the Campaign's index was known: its index and verdict. */
  private long installedAt = -1;
  private Runnable installedVerdict;
  /** Whether an outcome was handed over: the first one judged stands, whichever pool thread runs first. */
  private boolean settled;

  /**
   * Listens on {@code hub} at once, for the campaign of lease {@code leaseId} for {@code name}.
   *
   * @param executor where the outcome is settled (the node's blocking pool)
   */
  CampaignWaiter(EventHub hub, String name, long leaseId, Executor executor) {
    this.hub = hub;
    this.name = name;
    this.leaseId = leaseId;
    this.executor = executor;
    hub.listenToLease(leaseId, this);
  }

  /** Starts judging events from {@code campaignIndex} on, including those already seen. */
  synchronized void arm(long campaignIndex) {
    afterIndex = campaignIndex;
    if (installedVerdict != null && installedAt >= campaignIndex) {
      installedVerdict.run(); // the installed state already includes the Campaign
    }
    early.forEach(this::judge);
    early.clear();
  }

  @Override
  public synchronized void accept(ChangeEvent e) {
    if (afterIndex < 0) {
      early.add(e);
    } else {
      judge(e);
    }
  }

  @Override
  public synchronized void stateInstalled(StateTxn installed) {
    Runnable verdict = verdict(installed);
    if (afterIndex < 0) {
      early.clear(); // all older than the installed state, which stands for them
      installedAt = installed.appliedIndex();
      installedVerdict = verdict;
    } else if (installed.appliedIndex() >= afterIndex) {
      verdict.run();
    }
  }

  /** What the installed state says of this candidacy, as an action on the outcome (none: still waiting). */
  private Runnable verdict(StateTxn installed) {
    NameRecord rec = installed.name(name);
    if (rec != null && rec.hasHolder() && rec.getHolder().getLeaseId() == leaseId) {
      Holder h = rec.getHolder();
      return () -> settle(() -> elected.complete(h));
    }
    if (installed.lease(leaseId) == null) {
      return this::leaseEnded;
    }
    return () -> { };
  }

  private void judge(ChangeEvent e) {
    // At the Campaign's own index too: a later operation of the same batch entry (a Revoke, a Resign that revokes)
    // can promote the candidacy the Campaign just queued; no earlier election of this lease has that index.
    if (e.index() < afterIndex || e.leaseId() != leaseId) {
      return;
    }
    if (e.kind() == Kind.ELECTED && e.name().equals(name)) {
      settle(() -> elected.complete(e.holder()));
    } else if (e.kind() == Kind.LEASE_ENDED) {
      leaseEnded();
    }
  }

  private void leaseEnded() {
    settle(() -> elected.completeExceptionally(Status.NOT_FOUND
        .withDescription("lease " + leaseId + " ended while campaigning for '" + name + "'").asRuntimeException()));
  }

  /** The hub dropped this waiter because it threw: the campaign ends rather than wait for events it will miss. */
  @Override
  public synchronized void dropped(RuntimeException cause) {
    settle(() -> elected.completeExceptionally(Status.INTERNAL.withDescription("waiting for '" + name
        + "' failed (" + cause + "); campaign again with lease " + leaseId).asRuntimeException()));
  }

  /** Completes {@link #elected} on the executor, which runs what the caller chained on it (the gRPC answer). */
  private void settle(Runnable outcome) {
    if (settled) {
      return;
    }
    settled = true;
    try {
      executor.execute(outcome);
    } catch (RejectedExecutionException e) {
      // The pool is full: answer here all the same, one gRPC send that does not block. Refusing instead would
      // leave an elected caller holding the name without knowing it (§4.4).
      outcome.run();
    }
  }

  /** Completes with the new holder (this lease), or fails NOT_FOUND when the lease ended first. */
  CompletableFuture<Holder> elected() {
    return elected;
  }

  /** Stops listening. */
  void close() {
    hub.unsubscribeFromLease(leaseId, this);
  }
}
