package io.regent.client;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.ObserveResponse;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * An Observe stream of one name that survives the death of its node: when the stream fails (the node stopped,
 * hung — found by the channel keepalive — or refused), it is opened again at the client's next endpoint, after
 * the position of the last event delivered — its index and its ordinal within that entry, since one entry can
 * change the name more than once — so no event is delivered twice and none is skipped. When the new node
 * no longer keeps the history after that index (it restarted since, or the history rolled over), it sends the
 * current state with {@code compacted = true} instead, and the listener learns the intermediate changes were
 * lost (docs/architecture.md §4).
 *
 * <p>Events reach the listener one at a time, in index order, on gRPC's executor. Close to stop.
 */
public final class ResumingObserver implements AutoCloseable {
  /**
   * Cap of the first pause before reopening a failed stream, ms; doubles up to {@link #MAX_BACKOFF_MS}. Each pause
   * is jittered within [cap/2, cap] ({@link RetryPolicy#equalJitter}).
   */
  static final long FIRST_BACKOFF_MS = 100;
  /** Largest cap of a pause before reopening, ms. */
  static final long MAX_BACKOFF_MS = 2_000;

  /** What the observer is told. */
  public interface Listener {
    /** One event; {@code e.getCompacted()} says that changes before it were not kept and are lost. */
    void onEvent(ObserveResponse e);

    /** The stream ended for good (INVALID_ARGUMENT for a bad name); nothing follows. */
    default void onFatal(StatusRuntimeException e) {
    }
  }

  private final RegentClient client;
  private final String name;
  private final Listener listener;
  private final ScheduledExecutorService retries = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "regent-observe-resume");
    t.setDaemon(true);
    return t;
  });
  private long lastIndex; // guarded by this
  /** Ordinal of the last event delivered within entry {@link #lastIndex}; 0: that whole entry (a CURRENT). */
  private int lastOrdinal; // guarded by this
  private long backoffMs = FIRST_BACKOFF_MS; // guarded by this
  private Runnable cancel; // guarded by this
  private boolean closed; // guarded by this

  private ResumingObserver(RegentClient client, String name, long afterIndex, Listener listener) {
    this.client = client;
    this.name = name;
    this.lastIndex = afterIndex;
    this.listener = listener;
  }

  /**
   * Observes {@code name} after log index {@code afterIndex} (0: start with the current holder).
   *
   * @throws IllegalArgumentException for a negative index
   */
  public static ResumingObserver start(RegentClient client, String name, long afterIndex, Listener listener) {
    if (afterIndex < 0) {
      throw new IllegalArgumentException("afterIndex must be >= 0, not " + afterIndex);
    }
    ResumingObserver o = new ResumingObserver(client, name, afterIndex, listener);
    o.open();
    return o;
  }

  /** The index of the last event delivered (where a reopened stream resumes). */
  public synchronized long lastIndex() {
    return lastIndex;
  }

  private synchronized void open() {
    if (closed) {
      return;
    }
    int endpoint = client.currentEndpoint();
    cancel = client.elections().observe(name, lastIndex, lastOrdinal, new StreamObserver<>() {
      @Override
      public void onNext(ObserveResponse e) {
        synchronized (ResumingObserver.this) {
          boolean later = after(e);
          if (closed || !later && !e.getCompacted()) {
            return; // delivered before a reopen
          }
          if (later) { // a compacted state from a node behind this one moves nothing back
            lastIndex = e.getIndex();
            lastOrdinal = e.getOrdinal();
          }
          backoffMs = FIRST_BACKOFF_MS;
        }
        listener.onEvent(e);
      }

      @Override
      public void onError(Throwable t) {
        Status s = Status.fromThrowable(t);
        if (s.getCode() == Status.Code.INVALID_ARGUMENT) {
          listener.onFatal(s.asRuntimeException());
          return;
        }
        client.moveOn(endpoint);
        reopenLater();
      }

      @Override
      public void onCompleted() {
        client.moveOn(endpoint); // a node shutting down ends its streams
        reopenLater();
      }
    });
  }

  /** Whether {@code e} comes after the last event delivered; an ordinal of 0 stands for its whole entry. */
  private boolean after(ObserveResponse e) {
    if (e.getIndex() != lastIndex) {
      return e.getIndex() > lastIndex;
    }
    return lastOrdinal != 0 && e.getOrdinal() > lastOrdinal;
  }

  private synchronized void reopenLater() {
    if (closed) {
      return;
    }
    // jittered: the observers of many clients that lost one node do not all reopen at the same instant
    long pause = RetryPolicy.equalJitter(backoffMs, ThreadLocalRandom.current());
    backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs * 2);
    retries.schedule(this::open, pause, TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    Runnable c;
    synchronized (this) {
      closed = true;
      c = cancel;
    }
    if (c != null) {
      c.run();
    }
    retries.shutdownNow();
  }
}
