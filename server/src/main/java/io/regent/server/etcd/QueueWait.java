package io.regent.server.etcd;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.store.StateTxn;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * A contender's wait for its turn in a {@link KeyQueue}, on this node's replica, as etcd's {@code concurrency}
 * package waits on a member's watch: each change of the keyspace (and a snapshot install) has it look again, on the
 * node's blocking pool, once the replica has applied the contender's own key. A deletion the replica has applied is
 * committed, so when it finds no older key the contender leads. Its future completes with the applied index it
 * found that at; it fails with UNKNOWN {@code gone} when the contender's own key went first (its lease ended, or
 * a client deleted it); cancelling the future stops the wait.
 */
final class QueueWait implements Consumer<ChangeEvent>, EventHub.InstallListener, EventHub.Droppable {
  private final EtcdKv kv;
  private final ByteString prefix;
  private final ByteString key;
  private final long rev;
  private final String gone;
  private final CompletableFuture<Long> turn = new CompletableFuture<>();
  private final AtomicBoolean lookPending = new AtomicBoolean();

  private QueueWait(EtcdKv kv, ByteString prefix, ByteString key, long rev, String gone) {
    this.kv = kv;
    this.prefix = prefix;
    this.key = key;
    this.rev = rev;
    this.gone = gone;
  }

  /**
   * Waits until {@code key}, created at {@code rev}, is the first key under {@code prefix}.
   *
   * @param gone the description of the failure when the key is gone first (etcd's, where it has one)
   * @return the applied index at which no older key was left
   */
  static CompletableFuture<Long> start(EtcdKv kv, ByteString prefix, ByteString key, long rev, String gone) {
    QueueWait w = new QueueWait(kv, prefix, key, rev, gone);
    EventHub hub = kv.replica().hub();
    hub.listen(w); // before the first look, so that no change after it goes unseen
    w.turn.whenComplete((v, e) -> hub.unsubscribe(w));
    hub.awaitApplied(rev).thenRun(w::scheduleLook);
    return w.turn;
  }

  @Override
  public void accept(ChangeEvent e) {
    if (e.kind() == ChangeEvent.Kind.KV_CHANGED && e.index() >= rev) {
      scheduleLook();
    }
  }

  @Override
  public void stateInstalled(StateTxn installed) {
    scheduleLook();
  }

  @Override
  public void dropped(RuntimeException cause) {
    turn.completeExceptionally(Status.INTERNAL.withDescription("waiting for its turn failed: " + cause)
        .asRuntimeException());
  }

  /** Runs on the apply thread at times: hands the look to the blocking pool and never blocks nor throws. */
  private void scheduleLook() {
    if (!turn.isDone() && lookPending.compareAndSet(false, true)) {
      try {
        kv.blocking().execute(() -> {
          lookPending.set(false);
          look();
        });
      } catch (RejectedExecutionException e) {
        turn.completeExceptionally(Status.RESOURCE_EXHAUSTED.withDescription("node overloaded: gave up waiting")
            .asRuntimeException());
      }
    }
  }

  private void look() {
    if (turn.isDone()) {
      return;
    }
    long[] at = new long[1];
    KeyQueue.Turn now;
    try {
      now = kv.replica().read(txn -> {
        at[0] = txn.appliedIndex();
        // below the key: a snapshot install behind it, whose apply brings another change
        return at[0] < rev ? KeyQueue.Turn.WAITING : KeyQueue.turn(txn.kv(), prefix, key, rev);
      });
    } catch (RuntimeException e) {
      turn.completeExceptionally(Status.INTERNAL.withDescription("could not read the keyspace: " + e)
          .asRuntimeException());
      return;
    }
    switch (now) {
      case FIRST -> turn.complete(at[0]);
      case GONE -> turn.completeExceptionally(Status.UNKNOWN.withDescription(gone).asRuntimeException());
      default -> {
      }
    }
  }
}
