package io.regent.server.api;

import io.grpc.stub.StreamObserver;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Answers the services' calls: a unary call from a future, once, or with the status ({@link StatusCodes}) of a
 * synchronous failure.
 */
final class CallAnswers {
  private CallAnswers() {
  }

  /** Completes a unary call from {@code future}, mapping the value with {@code toResponse}. */
  static <T, R> void reply(CompletableFuture<T> future, Function<T, R> toResponse, StreamObserver<R> obs) {
    future.whenComplete((v, err) -> answer(v, err, toResponse, obs));
  }

  private static <T, R> void answer(T v, Throwable err, Function<T, R> toResponse, StreamObserver<R> obs) {
    if (err != null) {
      obs.onError(StatusCodes.toStatus(err));
      return;
    }
    R response;
    try {
      response = toResponse.apply(v);
    } catch (RuntimeException e) {
      obs.onError(StatusCodes.toStatus(e));
      return;
    }
    obs.onNext(response);
    obs.onCompleted();
  }

  /**
   * Completes a unary call from {@code outcome} as {@link #reply} does, unless the caller cancelled the call and
   * with it the outcome (a campaign's, see {@link Campaigns#campaign}): a cancelled call gets no answer.
   */
  static <T, R> void replyUnlessCancelled(CompletableFuture<T> outcome, Function<T, R> toResponse,
                                          StreamObserver<R> obs) {
    outcome.whenComplete((v, err) -> {
      if (!(err instanceof CancellationException)) {
        answer(v, err, toResponse, obs);
      }
    });
  }

  /**
   * Answers a unary call whose outcome may arrive twice (a campaign's reply, or its election event; a cancel)
   * with the first one only: {@code err}'s status, else the value {@code response} gives (its status if it
   * throws). {@code answered} is the call's flag; once set, later outcomes do nothing.
   */
  static <R> void answerOnce(StreamObserver<R> obs, AtomicBoolean answered, Throwable err, Supplier<R> response) {
    if (!answered.compareAndSet(false, true)) {
      return;
    }
    try {
      if (err != null) {
        obs.onError(StatusCodes.toStatus(err));
        return;
      }
      obs.onNext(response.get());
      obs.onCompleted();
    } catch (RuntimeException e) {
      obs.onError(StatusCodes.toStatus(e));
    }
  }

  /** Runs {@code body}, turning a synchronous validation failure into the call's error. */
  static <R> void guard(StreamObserver<R> obs, Runnable body) {
    try {
      body.run();
    } catch (RuntimeException e) {
      obs.onError(StatusCodes.toStatus(e));
    }
  }
}
