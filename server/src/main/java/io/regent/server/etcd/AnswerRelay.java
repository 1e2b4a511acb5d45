package io.regent.server.etcd;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.util.function.Function;

/**
 * Relays the answer of an upstream unary Regent call to the etcd call that made it, turned into etcd's answer.
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
}
