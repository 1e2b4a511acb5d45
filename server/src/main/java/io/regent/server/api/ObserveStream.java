package io.regent.server.api;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.regent.api.v1.ObserveResponse;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.store.StateTxn;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * One Observe stream: ownership events of one name, in log order, through a bounded buffer.
 *
 * <p>Memory is bounded three ways (docs/architecture.md §4.3): events arrive on the apply thread and are only queued there,
 * as references to the {@link ChangeEvent} every stream shares; a message is handed to gRPC only while the
 * call {@link ServerCallStreamObserver#isReady is ready} (gRPC flow control: the reader's window and
 * gRPC's own small send buffer), so a reader that stops reading never makes the server serialize more; and
 * a stream whose queue reaches {@code capacity} is ended with RESOURCE_EXHAUSTED, telling the client the
 * index to resume after. Deliveries are coalesced, and a refused drain ends the stream ({@link EventStream}).
 */
final class ObserveStream extends EventStream<ObserveResponse> implements EventHub.InstallListener {
  private final String name;
  private final int capacity;
  private final ArrayDeque<ChangeEvent> queue = new ArrayDeque<>();
  /** The first message (current state), sent before any queued event; null once sent or when resuming. */
  private ObserveResponse first;
  /** Long.MAX_VALUE until {@link #start}: events are held back, then judged against the first message. */
  private long skipUpTo = Long.MAX_VALUE;
  /** With {@link #skipUpTo}: the entry's events up to this ordinal were sent before; 0: all of them. */
  private int skipOrdinal;
  /** Index of the last message handed to gRPC: where the client resumes after a RESOURCE_EXHAUSTED. */
  private long lastSentIndex;
  /** Index of the last snapshot installed while this stream was open (0: none). */
  private long installedAt;

  /**
   * @param capacity events this stream may have queued before it is ended with RESOURCE_EXHAUSTED
   * @param onClosed runs once when the stream ends (cancelled, failed or the server stopped)
   */
  ObserveStream(String name, ServerCallStreamObserver<ObserveResponse> obs, EventHub hub, Executor executor,
                int capacity, Runnable onClosed) {
    super("observe stream of '" + name + "'", obs, hub, executor, onClosed);
    this.name = name;
    this.capacity = capacity;
  }

  /**
   * Sends {@code current} (the state at {@code asOfIndex}; null when resuming), then {@code backlog}, then
   * held and later events after position ({@code asOfIndex}, {@code asOfOrdinal}) — 0: after the whole entry.
   */
  void start(ObserveResponse current, long asOfIndex, int asOfOrdinal, List<ChangeEvent> backlog) {
    synchronized (this) {
      if (asOfIndex < installedAt) {
        return; // a snapshot installed since: its state, sent with compacted=true, supersedes this older one
      }
      skipUpTo = asOfIndex;
      skipOrdinal = asOfOrdinal;
      lastSentIndex = asOfIndex;
      ArrayDeque<ChangeEvent> held = new ArrayDeque<>(queue);
      queue.clear();
      first = current;
      queue.addAll(backlog);
      held.stream().filter(e -> !sentBefore(e)).forEach(queue::add);
    }
    scheduleDrain();
  }

  @Override
  public void accept(ChangeEvent e) {
    if (!e.kind().isOwnershipChange() || !e.name().equals(name)) {
      return;
    }
    synchronized (this) {
      if (closed() || (skipUpTo != Long.MAX_VALUE && sentBefore(e))) {
        return;
      }
      if (queue.size() >= capacity) {
        end(Status.RESOURCE_EXHAUSTED, "observe stream of '" + name + "' fell " + capacity
            + " events behind and was closed");
        return;
      }
      queue.add(e);
    }
    scheduleDrain();
  }

  /**
   * The local state jumped to a snapshot: the events of the entries it covers will never reach this stream,
   * so it sends the installed state of its name with {@code compacted=true}, then the events after it.
   */
  @Override
  public void stateInstalled(StateTxn installed) {
    long index = installed.appliedIndex();
    ObserveResponse current = ObserveMessages.current(name, installed.name(name), index, true);
    synchronized (this) {
      if (closed()) {
        return;
      }
      installedAt = index;
      skipUpTo = index;
      skipOrdinal = 0;
      queue.clear(); // older than the installed state, which stands for them
      first = current;
    }
    scheduleDrain();
  }

  /** Whether {@code e} is at or before where this stream starts; caller holds the monitor. */
  private boolean sentBefore(ChangeEvent e) {
    return e.index() < skipUpTo || (e.index() == skipUpTo && (skipOrdinal == 0 || e.ordinal() <= skipOrdinal));
  }

  /** Number of events waiting to be sent (for tests and metrics). */
  synchronized int queued() {
    return queue.size();
  }

  @Override
  synchronized void drain() {
    if (skipUpTo == Long.MAX_VALUE) {
      return;
    }
    if (first != null && ready()) {
      send(first);
      lastSentIndex = first.getIndex();
      first = null;
    }
    while (first == null && !queue.isEmpty() && ready()) {
      ChangeEvent e = queue.poll();
      send(ObserveMessages.toResponse(e));
      lastSentIndex = e.index();
    }
  }

  /**
   * The index of the last entry sent whole: when an event of the last index sent still waits (an entry that changed
   * the name more than once), the one before it, so that a client resuming with {@code --after} (an index alone)
   * skips none of that entry's events.
   */
  @Override
  synchronized long resumeAfter() {
    ChangeEvent next = queue.peek();
    return next != null && next.index() == lastSentIndex ? lastSentIndex - 1 : lastSentIndex;
  }

  @Override
  void released() {
    queue.clear();
    first = null;
  }
}
