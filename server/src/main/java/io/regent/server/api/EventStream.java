package io.regent.server.api;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.EventHub;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * What the Observe and Group.Watch streams share: events reach a stream on the apply thread, which only records
 * them and hands a drain to the node's blocking pool (docs/architecture.md §9, §10); at most one drain per stream
 * is pending, so deliveries coalesce, and a drain hands messages to gRPC only while the call is ready (flow
 * control, §4.3). A drain the full pool refuses ends the stream with RESOURCE_EXHAUSTED and the index to resume
 * after (nothing may throw on the apply thread, §9), as a stream the hub drops ends with INTERNAL.
 *
 * <p>The stream's monitor guards its state, its drain and its end: a subclass's {@code synchronized} methods
 * share it.
 *
 * @param <T> the stream's response message
 */
abstract class EventStream<T> implements Consumer<ChangeEvent>, EventHub.Droppable {
  private final String what;
  private final ServerCallStreamObserver<T> obs;
  private final EventHub hub;
  private final Executor executor;
  private final Runnable onClosed;
  private final AtomicBoolean drainPending = new AtomicBoolean();
  private boolean closed;

  /**
   * @param what what the stream serves, for its statuses ("observe stream of 'jobs'")
   * @param executor where drains run (the node's blocking pool)
   * @param onClosed runs once when the stream ends (cancelled, failed or the server stopped)
   */
  EventStream(String what, ServerCallStreamObserver<T> obs, EventHub hub, Executor executor, Runnable onClosed) {
    this.what = what;
    this.obs = obs;
    this.hub = hub;
    this.executor = executor;
    this.onClosed = onClosed;
    obs.setOnCancelHandler(this::close);
    obs.setOnReadyHandler(this::scheduleDrain);
  }

  /** Sends what is due while {@link #ready}; runs with the stream's monitor held, never once it ended. */
  abstract void drain();

  /** The index of the last message handed to gRPC (or the stream's start): where its client resumes after. */
  abstract long resumeAfter();

  /** Lets go of what the stream holds; runs once, when it ends, with the monitor held. */
  void released() {
  }

  /** Has a drain run on the executor unless one is pending; ends the stream when the executor refuses it. */
  final void scheduleDrain() {
    if (drainPending.compareAndSet(false, true)) {
      try {
        executor.execute(() -> {
          drainPending.set(false);
          runDrain();
        });
      } catch (RejectedExecutionException e) {
        // the node's blocking pool is full; this may run on the apply thread, which must never fail
        end(Status.RESOURCE_EXHAUSTED, "node overloaded: " + what + " closed");
      }
    }
  }

  /** The hub dropped this stream because it threw: it ends, and its client may resume. */
  @Override
  public final void dropped(RuntimeException cause) {
    end(Status.INTERNAL, what + " failed (" + cause + ") and was closed");
  }

  /** Whether the client takes more messages now (gRPC flow control). */
  final boolean ready() {
    return obs.isReady();
  }

  /** Hands {@code message} to gRPC. */
  final void send(T message) {
    obs.onNext(message);
  }

  /** Whether the stream has ended. */
  final synchronized boolean closed() {
    return closed;
  }

  /** Ends the stream with {@code status} and says why, then the index to resume after; no effect once ended. */
  final synchronized void end(Status status, String why) {
    fail(status.withDescription(why + "; resume with --after " + resumeAfter()));
  }

  /** Ends the stream with an error status; no effect once ended. */
  final synchronized void fail(Status status) {
    if (!closed) {
      close();
      obs.onError(status.asRuntimeException());
    }
  }

  private synchronized void runDrain() {
    if (!closed) {
      drain();
    }
  }

  private synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    released();
    hub.unsubscribe(this);
    onClosed.run();
  }
}
