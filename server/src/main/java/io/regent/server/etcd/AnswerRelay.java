package io.regent.server.etcd;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.regent.server.api.StatusCodes;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Relays the answer of an upstream unary Regent call, or of a future the gateway computed itself, to the etcd call
 * that made it, turned into etcd's answer.
 */
final class AnswerRelay {
  private AnswerRelay() {
  }

  /**
   * An observer of one upstream unary call that answers {@code out}: the response mapped by {@code map}, or,
   * on failure, the value {@code recover} gives for the failure's status (etcd answering with success where
   * Regent refuses), or when that is null the status {@code translate} makes of it.
   */
  static <R, T> StreamObserver<R> unary(StreamObserver<T> out, Function<R, T> map, Function<Status, T> recover,
                                        Function<Status, Status> translate) {
    return new StreamObserver<>() {
      private boolean failed;

      @Override
      public void onNext(R r) {
        T answer;
        try {
          answer = map.apply(r);
        } catch (StatusRuntimeException e) {
          failed = true;
          out.onError(e);
          return;
        }
        out.onNext(answer);
      }

      @Override
      public void onError(Throwable t) {
        Status s = Status.fromThrowable(t);
        T answer = recover.apply(s);
        if (answer != null) {
          out.onNext(answer);
          out.onCompleted();
          return;
        }
        out.onError(translate.apply(s).asRuntimeException());
      }

      @Override
      public void onCompleted() {
        if (!failed) {
          out.onCompleted();
        }
      }
    };
  }

  /** {@link #unary(StreamObserver, Function, Function, Function)} passing every failure on unchanged. */
  static <R, T> StreamObserver<R> unary(StreamObserver<T> out, Function<R, T> map) {
    return unary(out, map, s -> null, s -> s);
  }

  /**
   * Answers {@code out} with what {@code call} completes with, or with the status of what it failed with (or threw:
   * a request refused before anything was proposed or read).
   */
  static <T> void future(StreamObserver<T> out, Supplier<CompletableFuture<T>> call) {
    CompletableFuture<T> f;
    try {
      f = call.get();
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    f.whenComplete((v, err) -> {
      if (err != null) {
        out.onError(StatusCodes.toStatus(err));
      } else {
        out.onNext(v);
        out.onCompleted();
      }
    });
  }
}
