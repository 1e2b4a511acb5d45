package io.regent.jepsen.client;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;

/**
 * How a client error becomes a history event, Jepsen's way: {@code :fail} only when the operation
 * certainly did not take effect, {@code :info} when it may have.
 *
 * <ul>
 *   <li>Timeouts ({@code DEADLINE_EXCEEDED}, {@code CANCELLED}) are always {@code :info}, and retire
 *       the process.
 *   <li>{@code INVALID_ARGUMENT}, {@code NOT_FOUND} and {@code FAILED_PRECONDITION} are refusals: the
 *       command was judged and rejected, so {@code :fail}.
 *   <li>{@code UNAVAILABLE} and anything else: {@code :fail} for reads (a read changes nothing), but
 *       {@code :info} for writes, because Regent answers UNAVAILABLE when a proposal timed out, and the
 *       entry may still commit.
 * </ul>
 */
public final class Errors {
  private Errors() {
  }

  /** True if the error is a timeout. */
  public static boolean timeout(StatusRuntimeException e) {
    Status.Code c = e.getStatus().getCode();
    return c == Status.Code.DEADLINE_EXCEEDED || c == Status.Code.CANCELLED;
  }

  /** True if a write that failed with this error certainly did not take effect. */
  public static boolean definiteFailure(StatusRuntimeException e) {
    Status.Code c = e.getStatus().getCode();
    return c == Status.Code.INVALID_ARGUMENT || c == Status.Code.NOT_FOUND
        || c == Status.Code.FAILED_PRECONDITION;
  }

  /** A short description for the {@code :error} field, e.g. {@code "UNAVAILABLE: no quorum"}. */
  public static String describe(StatusRuntimeException e) {
    String d = e.getStatus().getDescription();
    String s = e.getStatus().getCode() + (d == null ? "" : ": " + d);
    return s.length() > 200 ? s.substring(0, 200) + "..." : s;
  }
}
