package io.regent.server.api;

import io.grpc.stub.ServerCallStreamObserver;
import java.util.ArrayList;
import java.util.List;

/**
 * A server call for unit tests of the services: it records what the service sends; whether the client is ready
 * for more, and when it cancels, are the test's to say. Not thread-safe: for tests that run the service on
 * their own thread.
 */
class FakeServerCall<T> extends ServerCallStreamObserver<T> {
  /** Messages sent, in order. */
  final List<T> sent = new ArrayList<>();
  /** Whether the client takes more messages now ({@link #isReady}). */
  boolean ready = true;
  /** The error the call was closed with, or null. */
  Throwable error;
  private boolean cancelled;
  private Runnable onCancel = () -> { };

  /** The client cancels the call: the service's cancel handler runs. */
  void cancel() {
    cancelled = true;
    onCancel.run();
  }

  @Override
  public boolean isCancelled() {
    return cancelled;
  }

  @Override
  public void setOnCancelHandler(Runnable onCancelHandler) {
    onCancel = onCancelHandler;
  }

  @Override
  public boolean isReady() {
    return ready;
  }

  @Override
  public void onNext(T value) {
    sent.add(value);
  }

  @Override
  public void onError(Throwable t) {
    error = t;
  }

  @Override
  public void onCompleted() {
  }

  @Override
  public void setCompression(String compression) {
  }

  @Override
  public void setOnReadyHandler(Runnable onReadyHandler) {
  }

  @Override
  public void request(int count) {
  }

  @Override
  public void setMessageCompression(boolean enable) {
  }

  @Override
  public void disableAutoInboundFlowControl() {
  }
}
