package io.regent.server.api;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.server.replication.Proposer.UnavailableException;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.Result;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;

/**
 * Maps apply results and failures onto the gRPC status codes of docs/architecture.md §7, in one place, for the API
 * and for the etcd port's KV.
 */
public final class StatusCodes {
  private StatusCodes() {
  }

  /** Throws the gRPC error for a refused result; returns it unchanged when OK. */
  public static Result check(Result r) {
    if (r.getCode() == Code.OK) {
      return r;
    }
    Status s = switch (r.getCode()) {
      case NOT_FOUND -> Status.NOT_FOUND;
      case FAILED_PRECONDITION -> Status.FAILED_PRECONDITION;
      case INVALID_ARGUMENT -> Status.INVALID_ARGUMENT;
      case RESOURCE_EXHAUSTED -> Status.RESOURCE_EXHAUSTED;
      case OUT_OF_RANGE -> Status.OUT_OF_RANGE;
      default -> Status.INTERNAL;
    };
    throw s.withDescription(r.getMessage()).asRuntimeException();
  }

  /** An INVALID_ARGUMENT error with this message. */
  static StatusRuntimeException invalid(String message) {
    return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
  }

  /** The gRPC status for any failure of a call. */
  public static StatusRuntimeException toStatus(Throwable t) {
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
}
