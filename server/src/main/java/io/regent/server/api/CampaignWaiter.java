package io.regent.server.api;

import io.grpc.Status;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.ChangeEvent.Kind;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.Holder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Waits, on this node's applied events, until a lease is elected to a name or the lease ends.
 *
 * <p>Subscribed before the Campaign is proposed so no event is missed; events are buffered until the
 * Campaign's own index is known and only later events count, so an older election of the same lease is
 * never mistaken for this one.
 */
final class CampaignWaiter implements Consumer<ChangeEvent> {
  private final EventHub hub;
  private final String name;
  private final long leaseId;
  private final CompletableFuture<Holder> elected = new CompletableFuture<>();
  private final List<ChangeEvent> early = new ArrayList<>();
  private long afterIndex = -1;

  CampaignWaiter(EventHub hub, String name, long leaseId) {
    this.hub = hub;
    this.name = name;
    this.leaseId = leaseId;
    hub.listen(this);
  }

  /** Starts judging events with an index above {@code campaignIndex}, including those already seen. */
  synchronized void arm(long campaignIndex) {
    afterIndex = campaignIndex;
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

  private void judge(ChangeEvent e) {
    if (e.index() <= afterIndex || e.leaseId() != leaseId) {
      return;
    }
    if (e.kind() == Kind.ELECTED && e.name().equals(name)) {
      elected.complete(e.holder());
    } else if (e.kind() == Kind.LEASE_ENDED) {
      elected.completeExceptionally(Status.NOT_FOUND
          .withDescription("lease " + leaseId + " ended while campaigning for '" + name + "'").asRuntimeException());
    }
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
