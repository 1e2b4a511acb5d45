package io.regent.server.etcd;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.api.LeaderResponse;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.regent.server.api.StatusCodes;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.KvRecord;
import io.regent.statemachine.store.StateTxn;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * One etcd {@code Election.Observe} stream (docs/migrating.md "etcd's Election and Lock"): the leader of a name, the
 * first key under its prefix by create revision, as a {@code LeaderResponse} whose header is the log index it was
 * read at; then the leader again each time it, or its value, changes. The first read is linearizable (the leader
 * now, even on a lagging follower); later ones read this node's replica on each change of the keyspace, on the
 * blocking pool, and a read older than the last one sent is skipped, so the stream never goes back. Changes between
 * two reads are seen as one (the latest), and a name with no candidate sends nothing, as in etcd. The stream runs
 * until the client cancels it; its monitor guards what it has sent.
 */
final class LeaderObserve implements Consumer<ChangeEvent>, EventHub.InstallListener, EventHub.Droppable {
  private final ServerCallStreamObserver<LeaderResponse> obs;
  private final Headers headers;
  private final EtcdKv kv;
  private final ByteString prefix;
  private final AtomicBoolean lookPending = new AtomicBoolean();
  private long readAt; // the applied index of the newest read, 0 before the first
  private KvRecord sent;
  private boolean closed;

  private LeaderObserve(ServerCallStreamObserver<LeaderResponse> obs, Headers headers, EtcdKv kv, ByteString prefix) {
    this.obs = obs;
    this.headers = headers;
    this.kv = kv;
    this.prefix = prefix;
  }

  /** Starts observing the leader of the keys under {@code prefix} for {@code obs}. */
  static void start(ServerCallStreamObserver<LeaderResponse> obs, Headers headers, EtcdKv kv, ByteString prefix) {
    LeaderObserve o = new LeaderObserve(obs, headers, kv, prefix);
    obs.setOnCancelHandler(o::close);
    kv.replica().hub().listen(o); // before the first read: a change after it is looked at again
    try {
      kv.reader().read(false, o::read).whenComplete((v, err) -> {
        if (err != null) {
          o.fail(StatusCodes.toStatus(err).getStatus());
        } else {
          o.scheduleLook(); // whatever changed during the first read
        }
      });
    } catch (RuntimeException e) {
      o.fail(StatusCodes.toStatus(e).getStatus());
    }
  }

  @Override
  public void accept(ChangeEvent e) {
    if (e.kind() == ChangeEvent.Kind.KV_CHANGED) {
      scheduleLook();
    }
  }

  @Override
  public void stateInstalled(StateTxn installed) {
    scheduleLook();
  }

  @Override
  public void dropped(RuntimeException cause) {
    fail(Status.INTERNAL.withDescription("observe stream failed (" + cause + ") and was closed"));
  }

  private synchronized boolean started() {
    return readAt > 0;
  }

  /** Runs on the apply thread at times: hands the look to the blocking pool and never blocks nor throws. */
  private void scheduleLook() {
    if (started() && lookPending.compareAndSet(false, true)) {
      try {
        kv.blocking().execute(() -> {
          lookPending.set(false);
          look();
        });
      } catch (RejectedExecutionException e) {
        fail(Status.RESOURCE_EXHAUSTED.withDescription("node overloaded: observe stream closed"));
      }
    }
  }

  private void look() {
    try {
      kv.replica().read(this::read);
    } catch (RuntimeException e) {
      fail(Status.INTERNAL.withDescription("observe stream could not read the keyspace (" + e + ") and was closed"));
    }
  }

  /** Reads the leader from {@code txn} and sends it if it is news. */
  private Void read(StateTxn txn) {
    long applied = txn.appliedIndex();
    KvRecord first = KeyQueue.first(txn.kv(), prefix);
    synchronized (this) {
      if (closed || applied <= readAt) {
        return null;
      }
      readAt = applied;
      if (first == null || first.equals(sent)) {
        return null;
      }
      sent = first;
      obs.onNext(LeaderResponse.newBuilder().setHeader(headers.at(applied)).setKv(KvResponses.keyValue(first))
          .build());
    }
    return null;
  }

  private synchronized void fail(Status status) {
    if (!closed) {
      close();
      obs.onError(status.asRuntimeException());
    }
  }

  private synchronized void close() {
    closed = true;
    kv.replica().hub().unsubscribe(this);
  }
}
