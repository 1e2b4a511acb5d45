package io.regent.jepsen.client;

import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Bounds a blocking client call with a gRPC context deadline. {@code RegentClient}'s own deadlines are
 * long (15 s); gRPC applies the earlier of the stub's deadline and the context's, so every call made
 * inside {@link #call} gives up after the given time with {@code DEADLINE_EXCEEDED}.
 */
public final class Deadline {
  private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "jepsen-deadlines");
    t.setDaemon(true);
    return t;
  });

  private Deadline() {
  }

  /**
   * Runs {@code body} with a deadline.
   *
   * @throws StatusRuntimeException from the call, or INTERNAL wrapping any other exception
   */
  public static <T> T call(Duration timeout, Callable<T> body) {
    Context.CancellableContext ctx =
        Context.current().withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS, TIMER);
    try {
      return ctx.call(body);
    } catch (StatusRuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw Status.INTERNAL.withDescription(e.toString()).withCause(e).asRuntimeException();
    } finally {
      ctx.cancel(null);
    }
  }

  /** Like {@link #call} for a call without a result. */
  public static void run(Duration timeout, Runnable body) {
    call(timeout, () -> {
      body.run();
      return null;
    });
  }
}
