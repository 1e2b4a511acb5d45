package io.regent.server.api;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.regent.server.confirm.Proposer.UnavailableException;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.Result;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;

/** Maps apply results and failures onto the gRPC status codes of docs/architecture.md §7, in one place. */
final class Statuses {
  private Statuses() {
  }

  /** Throws the gRPC error for a refused result; returns it unchanged when OK. */
  static Result check(Result r) {
    if (r.getCode() == Code.OK) {
      return r;
    }
    Status s = switch (r.getCode()) {
      case NOT_FOUND -> Status.NOT_FOUND;
      case FAILED_PRECONDITION -> Status.FAILED_PRECONDITION;
      case INVALID_ARGUMENT -> Status.INVALID_ARGUMENT;
      case RESOURCE_EXHAUSTED -> Status.RESOURCE_EXHAUSTED;
      default -> Status.INTERNAL;
    };
    throw s.withDescription(r.getMessage()).asRuntimeException();
  }

  /** An INVALID_ARGUMENT error with this message. */
  static StatusRuntimeException invalid(String message) {
    return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
  }

  /** The gRPC status for any failure of a call. */
  static StatusRuntimeException toStatus(Throwable t) {
    Throwable c = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    if (c instanceof StatusRuntimeException sre) {
      return sre;
    }
    if (c instanceof UnavailableException) {
      return Status.UNAVAILABLE.withDescription(c.getMessage()).asRuntimeException();
    }
    if (c instanceof RejectedExecutionException) { // the node's bounded blocking pool is full
      return Status.RESOURCE_EXHAUSTED.withDescription("node overloaded: too much work queued; retry later")
          .asRuntimeException();
    }
    return Status.INTERNAL.withDescription(String.valueOf(c)).withCause(c).asRuntimeException();
  }

  /** Completes a unary call from {@code future}, mapping the value with {@code toResponse}. */
  static <T, R> void reply(CompletableFuture<T> future, Function<T, R> toResponse, StreamObserver<R> obs) {
    future.whenComplete((v, err) -> answer(v, err, toResponse, obs));
  }

  private static <T, R> void answer(T v, Throwable err, Function<T, R> toResponse, StreamObserver<R> obs) {
    if (err != null) {
      obs.onError(toStatus(err));
      return;
    }
    R response;
    try {
      response = toResponse.apply(v);
    } catch (RuntimeException e) {
      obs.onError(toStatus(e));
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
        obs.onError(toStatus(err));
        return;
      }
      obs.onNext(response.get());
      obs.onCompleted();
    } catch (RuntimeException e) {
      obs.onError(toStatus(e));
    }
  }

  /** Runs {@code body}, turning a synchronous validation failure into the call's error. */
  static <R> void guard(StreamObserver<R> obs, Runnable body) {
    try {
      body.run();
    } catch (RuntimeException e) {
      obs.onError(toStatus(e));
    }
  }
}
