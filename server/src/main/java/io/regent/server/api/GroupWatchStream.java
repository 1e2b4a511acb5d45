package io.regent.server.api;

import io.grpc.stub.ServerCallStreamObserver;
import io.regent.api.v1.GroupWatchResponse;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.EventHub;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One Group.Watch stream: a member's whole assignment each time it changes (docs/ownership.md).
 *
 * <p>State, not events: a change only marks the stream dirty with its index (on the apply thread, without
 * a lock); a drain task takes the group's shared snapshot ({@link GroupSnapshots}) read at or after that
 * index and sends the member's assignment when it differs from the last one sent. Changes that come faster
 * than the reader reads coalesce into one message, so memory stays one message per stream however slow the
 * reader, and a message is handed to gRPC only while the call is ready (flow control); a refused drain ends
 * the stream ({@link EventStream}). Nothing is read before {@link #start}: the caller's linearizable read has
 * then brought the replica to the index the stream must start from.
 */
final class GroupWatchStream extends EventStream<GroupWatchResponse> {
  private final String group;
  private final String member;
  private final long afterIndex;
  private final GroupSnapshots.Shared snapshots;
  private final AtomicBoolean dirty = new AtomicBoolean(true);
  /** The index the next message must be read at or after: the latest change heard of, or the start. */
  private final AtomicLong readAtLeast = new AtomicLong();
  private volatile boolean started;
  private GroupWatchResponse lastSent;

  /**
   * @param afterIndex the request's: only an assignment with a higher index is sent
   * @param snapshots the group's shared snapshot on this node
   * @param onClosed runs once when the stream ends (cancelled, failed or the server stopped)
   */
  GroupWatchStream(String group, String member, long afterIndex, ServerCallStreamObserver<GroupWatchResponse> obs,
                   GroupSnapshots.Shared snapshots, EventHub hub, Executor executor, Runnable onClosed) {
    super("group watch stream of '" + member + "' in '" + group + "'", obs, hub, executor, onClosed);
    this.group = group;
    this.member = member;
    this.afterIndex = afterIndex;
    this.snapshots = snapshots;
  }

  /** Lets the stream send: the local replica has applied {@code index}, the linearizable starting point. */
  void start(long index) {
    readAtLeast.accumulateAndGet(index, Math::max);
    started = true;
    scheduleDrain();
  }

  @Override
  public void accept(ChangeEvent e) {
    if (e.kind() != ChangeEvent.Kind.GROUP_CHANGED || !e.name().equals(group)) {
      return;
    }
    readAtLeast.accumulateAndGet(e.index(), Math::max);
    dirty.set(true);
    scheduleDrain();
  }

  @Override
  synchronized void drain() {
    if (!started || !ready() || !dirty.getAndSet(false)) {
      return; // not ready: onReady schedules the next drain
    }
    GroupWatchResponse now = snapshots.atLeast(readAtLeast.get()).member(member);
    if (now.getIndex() > afterIndex && (lastSent == null || !GroupViews.sameAssignment(lastSent, now))) {
      send(now);
      lastSent = now;
    }
  }

  @Override
  synchronized long resumeAfter() {
    return lastSent == null ? afterIndex : lastSent.getIndex();
  }
}
