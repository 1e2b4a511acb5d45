package io.regent.server.api;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.regent.api.v1.ObserveResponse;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.EventHub;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * One Observe stream: ownership events of one name, in log order, through a bounded buffer.
 *
 * <p>Events arrive on the apply thread and are only queued there; a consumer that lets the buffer fill is
 * closed with RESOURCE_EXHAUSTED rather than letting memory grow (DESIGN §4).
 */
final class ObserveStream implements Consumer<ChangeEvent> {
  private final String name;
  private final ServerCallStreamObserver<ObserveResponse> obs;
  private final EventHub hub;
  private final Executor executor;
  private final int capacity;
  private final ArrayDeque<ObserveResponse> queue = new ArrayDeque<>();
  /** Long.MAX_VALUE until {@link #start}: events are held back, then judged against the first message. */
  private long skipUpTo = Long.MAX_VALUE;
  private boolean closed;

  ObserveStream(String name, ServerCallStreamObserver<ObserveResponse> obs, EventHub hub, Executor executor,
                int capacity) {
    this.name = name;
    this.obs = obs;
    this.hub = hub;
    this.executor = executor;
    this.capacity = capacity;
    obs.setOnCancelHandler(this::close);
    obs.setOnReadyHandler(() -> executor.execute(this::drain));
  }

  /** Sends {@code first} (the current state at {@code asOfIndex}), then events above that index. */
  void start(ObserveResponse first, long asOfIndex, List<ObserveResponse> backlog) {
    synchronized (this) {
      skipUpTo = asOfIndex;
      ArrayDeque<ObserveResponse> held = new ArrayDeque<>(queue);
      queue.clear();
      if (first != null) {
        queue.add(first);
      }
      queue.addAll(backlog);
      held.stream().filter(r -> r.getIndex() > asOfIndex).forEach(queue::add);
    }
    executor.execute(this::drain);
  }

  @Override
  public void accept(ChangeEvent e) {
    if (!e.kind().isOwnershipChange() || !e.name().equals(name)) {
      return;
    }
    synchronized (this) {
      if (closed || (skipUpTo != Long.MAX_VALUE && e.index() <= skipUpTo)) {
        return;
      }
      if (queue.size() >= capacity) {
        fail(Status.RESOURCE_EXHAUSTED.withDescription("observer of '" + name + "' fell more than " + capacity
            + " events behind"));
        return;
      }
      queue.add(Events.toResponse(e));
    }
    executor.execute(this::drain);
  }

  private synchronized void drain() {
    while (!closed && skipUpTo != Long.MAX_VALUE && obs.isReady() && !queue.isEmpty()) {
      obs.onNext(queue.poll());
    }
  }

  /** Ends the stream with an error status. */
  synchronized void fail(Status status) {
    if (!closed) {
      close();
      obs.onError(status.asRuntimeException());
    }
  }

  private synchronized void close() {
    closed = true;
    queue.clear();
    hub.unsubscribe(this);
  }
}
