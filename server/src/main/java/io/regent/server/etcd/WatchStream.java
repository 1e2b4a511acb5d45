package io.regent.server.etcd;

import io.etcd.jetcd.api.Event;
import io.etcd.jetcd.api.WatchCreateRequest;
import io.etcd.jetcd.api.WatchRequest;
import io.etcd.jetcd.api.WatchResponse;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.KvEvent;
import io.regent.statemachine.replica.ReplicaView;
import io.regent.statemachine.store.KvHistory;
import io.regent.statemachine.store.StateTxn;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * One etcd Watch stream carrying many watchers (docs/migrating.md "etcd's Watch"). The replicated history in LMDB
 * ({@link KvHistory}) is the one source of events: a drain, on the node's blocking pool, reads in one transaction
 * the revisions each watcher is due up to the state's applied index and sends them, so catching up from a past
 * {@code start_revision} and following live writes are one path, and no event is missed or sent twice. The apply
 * hook ({@link ChangeEvent.Kind#KV_CHANGED}, a snapshot install) only schedules a drain; at most one is pending,
 * and a drain hands messages to gRPC only while the call is ready (flow control), reading no more history until
 * what it queued went out.
 *
 * <p>Every response carries whole revisions, and its {@code header.revision} is the last revision its watcher has
 * been sent (or found nothing in), never more. A watcher due from a revision at or below the history's floor is
 * cancelled with {@code compact_revision} = the floor + 1, the oldest revision still served, as etcd cancels a
 * watcher behind its compaction. The stream's monitor guards its watchers and its outbox.
 */
final class WatchStream implements StreamObserver<WatchRequest>, Consumer<ChangeEvent>, EventHub.InstallListener,
    EventHub.Droppable {
  /** Revisions one watcher reads per drain, at most: a long catch-up goes out in several drains. */
  static final int REVISIONS_PER_READ = 256;
  /** A response stops taking revisions once its events pass this size, bytes (one revision is never split). */
  static final int RESPONSE_BYTES = 1 << 20;
  /** How often a watcher that asked for progress notifications and got no event hears of progress: etcd's default. */
  static final long PROGRESS_NOTIFY_S = 600;

  private final ServerCallStreamObserver<WatchResponse> obs;
  private final Headers headers;
  private final EtcdKv node;
  private final Queue<WatchRequest> requests = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean drainPending = new AtomicBoolean();
  private final ArrayDeque<WatchResponse> outbox = new ArrayDeque<>();
  private final TreeMap<Long, Watcher> watchers = new TreeMap<>();
  private long nextAutoId;
  private boolean progressRequested;
  private boolean progressTick;
  private ScheduledFuture<?> ticker;
  private boolean closed;

  WatchStream(ServerCallStreamObserver<WatchResponse> obs, Headers headers, EtcdKv node) {
    this.obs = obs;
    this.headers = headers;
    this.node = node;
    obs.setOnCancelHandler(this::close);
    obs.setOnReadyHandler(this::scheduleDrain);
    node.replica().hub().listen(this);
  }

  /**
   * Takes a create, cancel or progress request, answered in order by the next drain. A request with none of them
   * ends the stream with INVALID_ARGUMENT (etcd ignores it; no etcd client sends one).
   */
  @Override
  public void onNext(WatchRequest req) {
    if (req.getRequestUnionCase() == WatchRequest.RequestUnionCase.REQUESTUNION_NOT_SET) {
      fail(Status.INVALID_ARGUMENT.withDescription("etcdserver: a watch request needs a create, cancel or progress "
          + "request; the stream and its watchers are closed"));
      return;
    }
    requests.add(req);
    scheduleDrain();
  }

  /** The client half-closed: the stream ends, as etcd ends it. */
  @Override
  public synchronized void onCompleted() {
    if (!closed) {
      close();
      obs.onCompleted();
    }
  }

  @Override
  public void onError(Throwable t) {
    close();
  }

  /** An entry changed etcd's keyspace: what watchers are due is in the history now. */
  @Override
  public void accept(ChangeEvent e) {
    if (e.kind() == ChangeEvent.Kind.KV_CHANGED) {
      scheduleDrain();
    }
  }

  /** A snapshot replaced the state: its history is read as any other, and what it no longer holds is compacted. */
  @Override
  public void stateInstalled(StateTxn installed) {
    scheduleDrain();
  }

  @Override
  public void dropped(RuntimeException cause) {
    fail(Status.INTERNAL.withDescription("watch stream failed (" + cause + ") and was closed"));
  }

  private void scheduleDrain() {
    if (drainPending.compareAndSet(false, true)) {
      try {
        node.blocking().execute(() -> {
          drainPending.set(false);
          drain();
        });
      } catch (RejectedExecutionException e) {
        // may run on the apply thread, which must never fail (docs/architecture.md §9)
        fail(Status.RESOURCE_EXHAUSTED.withDescription("node overloaded: watch stream closed"));
      }
    }
  }

  private synchronized void drain() {
    if (closed || !flush()) {
      return;
    }
    boolean more;
    try {
      more = node.replica().read(this::collect);
    } catch (RuntimeException e) {
      fail(Status.INTERNAL.withDescription("watch stream could not read the history (" + e + ") and was closed"));
      return;
    }
    if (flush() && more) {
      scheduleDrain();
    }
  }

  /** Answers the requests received, then queues what each watcher is due; whether some watcher is due more. */
  private boolean collect(StateTxn txn) {
    long applied = txn.appliedIndex();
    KvHistory history = txn.kvHistory();
    for (WatchRequest req = requests.poll(); req != null; req = requests.poll()) {
      switch (req.getRequestUnionCase()) {
        case CREATE_REQUEST -> create(req.getCreateRequest(), applied);
        case CANCEL_REQUEST -> cancel(req.getCancelRequest().getWatchId(), applied);
        default -> progressRequested = true;
      }
    }
    boolean more = false;
    long floor = history.floor();
    for (Iterator<Watcher> it = watchers.values().iterator(); it.hasNext(); ) {
      Watcher w = it.next();
      if (w.next <= floor) {
        outbox.add(WatchResponses.compacted(headers.at(Math.min(w.next - 1, applied)), w.id, floor + 1));
        it.remove();
      } else if (w.next <= applied) {
        more |= due(w, history.read(w.next, applied, REVISIONS_PER_READ), applied);
      }
    }
    if (progressRequested && !more) {
      progressRequested = false;
      outbox.add(WatchResponses.progress(headers.at(sentUpTo(applied)), WatchResponses.NO_WATCHER));
    }
    if (progressTick) {
      progressTick = false;
      for (Watcher w : watchers.values()) {
        if (w.progressNotify && !w.sentSinceTick && w.next > applied) {
          outbox.add(WatchResponses.progress(headers.at(applied), w.id));
        }
        w.sentSinceTick = false;
      }
    }
    return more;
  }

  /**
   * Queues the events of {@code read} that {@code w} sees, whole revisions, up to {@link #RESPONSE_BYTES}, and moves
   * it past them (past {@code applied} when it read everything); whether it is due more.
   */
  private boolean due(Watcher w, List<KvHistory.Revision> read, long applied) {
    WatchResponse.Builder out = WatchResponse.newBuilder().setWatchId(w.id);
    long upTo = read.size() < REVISIONS_PER_READ ? applied : read.get(read.size() - 1).revision();
    long bytes = 0;
    for (KvHistory.Revision r : read) {
      for (KvEvent e : r.events()) {
        Event seen = w.visible(e);
        if (seen != null) {
          out.addEvents(seen);
          bytes += seen.getSerializedSize();
        }
      }
      if (bytes >= RESPONSE_BYTES) {
        upTo = r.revision();
        break;
      }
    }
    w.next = upTo + 1;
    if (out.getEventsCount() > 0) {
      outbox.add(out.setHeader(headers.at(upTo)).build());
      w.sentSinceTick = true;
    }
    return upTo < applied;
  }

  private void create(WatchCreateRequest c, long applied) {
    String bad = Watcher.badRange(c);
    long asked = Watcher.askedId(c);
    if (bad == null && asked != 0 && watchers.containsKey(asked)) {
      bad = "mvcc: duplicate watch ID provided on the WatchStream";
    }
    if (bad != null) {
      outbox.add(WatchResponses.refused(headers.at(applied), bad));
      return;
    }
    long id = asked;
    if (id == 0) {
      while (watchers.containsKey(nextAutoId)) {
        nextAutoId++;
      }
      id = nextAutoId++;
    }
    // start_revision is inclusive; 0 is "from now": the next revision after the state read
    Watcher w = new Watcher(id, c, c.getStartRevision() > 0 ? c.getStartRevision() : applied + 1);
    watchers.put(id, w);
    outbox.add(WatchResponses.created(headers.at(Math.min(w.next - 1, applied)), id));
    if (w.progressNotify && ticker == null) {
      ticker = node.timers().scheduleWithFixedDelay(this::tick, PROGRESS_NOTIFY_S, PROGRESS_NOTIFY_S,
          TimeUnit.SECONDS);
    }
  }

  /** Cancels watcher {@code id}; an id this stream does not have is ignored, as etcd ignores it. */
  private void cancel(long id, long applied) {
    Watcher w = watchers.remove(id);
    if (w != null) {
      outbox.add(WatchResponses.cancelled(headers.at(Math.min(w.next - 1, applied)), id));
    }
  }

  /** The revision every watcher of the stream has been sent up to ({@code applied} when it has none). */
  private long sentUpTo(long applied) {
    return Math.min(applied, watchers.values().stream().mapToLong(w -> w.next - 1).min().orElse(applied));
  }

  private void tick() {
    synchronized (this) {
      progressTick = true;
    }
    scheduleDrain();
  }

  /** Hands queued responses to gRPC while the call is ready; whether the outbox is empty. */
  private boolean flush() {
    while (!outbox.isEmpty() && obs.isReady()) {
      obs.onNext(outbox.poll());
    }
    return outbox.isEmpty();
  }

  private synchronized void fail(Status status) {
    if (!closed) {
      close();
      obs.onError(status.asRuntimeException());
    }
  }

  /** The watchers the stream carries now (none once it ended). */
  synchronized int watcherCount() {
    return closed ? 0 : watchers.size();
  }

  /** Whether the stream ended (the client closed it, failed, or the node ended it). */
  synchronized boolean ended() {
    return closed;
  }

  private synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    node.replica().hub().unsubscribe(this);
    if (ticker != null) {
      ticker.cancel(false);
    }
  }
}
