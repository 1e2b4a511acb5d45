package io.regent.server.api;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.regent.api.v1.GroupWatchResponse;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.replica.ReplicaView;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * One Group.Watch stream: a member's whole assignment each time it changes (docs/ownership.md).
 *
 * <p>State, not events: a change only marks the stream dirty (on the apply thread); a drain task reads the
 * local replica and sends the assignment when it differs from the last one sent. Changes that come faster
 * than the reader reads coalesce into one message, so memory stays one message per stream however slow the
 * reader, and a message is handed to gRPC only while the call is ready (flow control). Nothing is read
 * before {@link #start}: the caller's linearizable read has then brought the replica past the point the
 * stream must start from, and every later local read is at or after it.
 */
final class GroupWatchStream implements Consumer<ChangeEvent> {
  private final String group;
  private final String member;
  private final long afterIndex;
  private final ServerCallStreamObserver<GroupWatchResponse> obs;
  private final ReplicaView replica;
  private final Executor executor;
  private final Runnable onClosed;
  private final AtomicBoolean drainPending = new AtomicBoolean();
  private boolean started;
  private boolean dirty = true;
  private GroupWatchResponse lastSent;
  private boolean closed;

  /** @param onClosed runs once when the stream ends (cancelled, failed or the server stopped) */
  GroupWatchStream(String group, String member, long afterIndex, ServerCallStreamObserver<GroupWatchResponse> obs,
                   ReplicaView replica, Executor executor, Runnable onClosed) {
    this.group = group;
    this.member = member;
    this.afterIndex = afterIndex;
    this.obs = obs;
    this.replica = replica;
    this.executor = executor;
    this.onClosed = onClosed;
    obs.setOnCancelHandler(this::close);
    obs.setOnReadyHandler(this::scheduleDrain);
  }

  /** Lets the stream send: the local replica now holds at least the linearizable starting point. */
  void start() {
    synchronized (this) {
      started = true;
    }
    scheduleDrain();
  }

  @Override
  public void accept(ChangeEvent e) {
    if (e.kind() != ChangeEvent.Kind.GROUP_CHANGED || !e.name().equals(group)) {
      return;
    }
    synchronized (this) {
      dirty = true;
    }
    scheduleDrain();
  }

  private void scheduleDrain() {
    if (drainPending.compareAndSet(false, true)) {
      executor.execute(() -> {
        drainPending.set(false);
        drain();
      });
    }
  }

  private synchronized void drain() {
    if (closed || !started || !dirty || !obs.isReady()) {
      return; // not ready: onReady schedules the next drain
    }
    dirty = false;
    GroupWatchResponse now = replica.read(txn -> GroupViews.member(txn.group(group), member, txn.appliedIndex()));
    if (now.getIndex() > afterIndex && (lastSent == null || !GroupViews.sameAssignment(lastSent, now))) {
      obs.onNext(now);
      lastSent = now;
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
    if (closed) {
      return;
    }
    closed = true;
    replica.hub().unsubscribe(this);
    onClosed.run();
  }
}
