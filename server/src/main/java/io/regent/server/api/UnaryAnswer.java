package io.regent.server.api;

import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;

/**
 * The answer of a unary service method called in-process, as a future: the routing services call each cell's
 * method with one and merge the answers (docs/architecture.md §14).
 */
final class UnaryAnswer<T> implements StreamObserver<T> {
  private final CompletableFuture<T> answer = new CompletableFuture<>();
  private T value;

  /** Completes with the one value sent, or with the error the method ended with. */
  CompletableFuture<T> future() {
    return answer;
  }

  @Override
  public void onNext(T v) {
    value = v;
  }

  @Override
  public void onError(Throwable t) {
    answer.completeExceptionally(t);
  }

  @Override
  public void onCompleted() {
    answer.complete(value);
  }
}
