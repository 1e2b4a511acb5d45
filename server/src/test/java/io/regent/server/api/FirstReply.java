package io.regent.server.api;

import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;

/** An observer for raw gRPC stubs in tests: its future ends with the first reply, or with the call's error. */
public final class FirstReply<T> implements StreamObserver<T> {
  private final CompletableFuture<T> future = new CompletableFuture<>();

  /** The first reply, or the status the call ended with. */
  public CompletableFuture<T> future() {
    return future;
  }

  @Override
  public void onNext(T reply) {
    future.complete(reply);
  }

  @Override
  public void onError(Throwable t) {
    future.completeExceptionally(t);
  }

  @Override
  public void onCompleted() {
  }
}
