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
import java.util.function.Consumer;

/**
 * Waits, on this node's applied events, until a lease is elected to a name or the lease ends.
 *
 * <p>Subscribed before the Campaign is proposed so no event is missed; events are buffered until the
 * Campaign's own index is known and only later events count, so an older election of the same lease is
 * never mistaken for this one. A snapshot installed on this node replaces the events of the entries it
 * covers: the waiter then judges from the installed state instead (elected, lease gone, or still waiting).
 */
final class CampaignWaiter implements Consumer<ChangeEvent>, EventHub.InstallListener {
  private final EventHub hub;
  private final String name;
  private final long leaseId;
  private final CompletableFuture<Holder> elected = new CompletableFuture<>();
  private final List<ChangeEvent> early = new ArrayList<>();
  private long afterIndex = -1;
  /** The last snapshot installed before the Campaign's index was known: its index and verdict. */
  private long installedAt = -1;
  private Runnable installedVerdict;

  CampaignWaiter(EventHub hub, String name, long leaseId) {
    this.hub = hub;
    this.name = name;
    this.leaseId = leaseId;
    hub.listen(this);
  }

  /** Starts judging events with an index above {@code campaignIndex}, including those already seen. */
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
      return () -> elected.complete(h);
    }
    if (installed.lease(leaseId) == null) {
      return this::leaseEnded;
    }
    return () -> { };
  }

  private void judge(ChangeEvent e) {
    if (e.index() <= afterIndex || e.leaseId() != leaseId) {
      return;
    }
    if (e.kind() == Kind.ELECTED && e.name().equals(name)) {
      elected.complete(e.holder());
    } else if (e.kind() == Kind.LEASE_ENDED) {
      leaseEnded();
    }
  }

  private void leaseEnded() {
    elected.completeExceptionally(Status.NOT_FOUND
        .withDescription("lease " + leaseId + " ended while campaigning for '" + name + "'").asRuntimeException());
  }

  /** Completes with the new holder (this lease), or fails NOT_FOUND when the lease ended first. */
  CompletableFuture<Holder> elected() {
    return elected;
  }

  /** Stops listening. */
  void close() {
    hub.unsubscribe(this);
  }
}
