package io.regent.client;

import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import io.grpc.Deadline;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.IntConsumer;

/**
 * One call that is safe to repeat, hedged over the endpoints: it starts at one endpoint; if no answer has come
 * after {@code hedgeAfterMs}, or the endpoint is unreachable, the same call goes to the next endpoint too,
 * while the first one keeps its whole deadline. The first answer wins and the others are cancelled. A slow
 * but live node thus keeps all of the budget, and a hung one costs only the hedge delay — what a lease
 * keepalive needs, whose budget is a third of the TTL (docs/architecture.md §3).
 *
 * <p>An answer that is a verdict (NOT_FOUND, INVALID_ARGUMENT, ...) ends the call at once; UNAVAILABLE and
 * DEADLINE_EXCEEDED only count as that endpoint's failure.
 */
final class HedgedCall<T> {
  private final List<ManagedChannel> channels;
  private final int start;
  private final Deadline deadline;
  private final long hedgeAfterMs;
  private final ScheduledExecutorService timer;
  private final BiFunction<ManagedChannel, Deadline, ListenableFuture<T>> rpc;
  private final IntConsumer answered;
  private final Failure failed;
  private final CompletableFuture<T> result = new CompletableFuture<>();
  private final List<ListenableFuture<T>> attempts = new ArrayList<>(); // guarded by this
  private int failures; // guarded by this
  private StatusRuntimeException last; // guarded by this

  /** An attempt that failed with UNAVAILABLE or DEADLINE_EXCEEDED. */
  @FunctionalInterface
  interface Failure {
    /** @param nodeAnswered whether the node itself refused (alive), rather than the transport failing */
    void failed(int endpoint, boolean nodeAnswered);
  }

  private HedgedCall(List<ManagedChannel> channels, int start, Deadline deadline, long hedgeAfterMs,
                     ScheduledExecutorService timer, BiFunction<ManagedChannel, Deadline, ListenableFuture<T>> rpc,
                     IntConsumer answered, Failure failed) {
    this.channels = channels;
    this.start = start;
    this.deadline = deadline;
    this.hedgeAfterMs = hedgeAfterMs;
    this.timer = timer;
    this.rpc = rpc;
    this.answered = answered;
    this.failed = failed;
  }

  /**
   * Runs the call and waits for its outcome.
   *
   * @param answered told the index of the endpoint that answered
   * @param failed told the index of an endpoint that was unreachable, did not answer in time or refused with
   *     UNAVAILABLE, and whether the node answered that refusal itself ({@link NodeRefusal})
   * @throws StatusRuntimeException the verdict, or the last failure when every endpoint failed, or
   *     DEADLINE_EXCEEDED when the deadline passed
   */
  static <T> T run(List<ManagedChannel> channels, int start, Deadline deadline, long hedgeAfterMs,
                   ScheduledExecutorService timer, BiFunction<ManagedChannel, Deadline, ListenableFuture<T>> rpc,
                   IntConsumer answered, Failure failed) {
    CompletableFuture<T> outcome = start(channels, start, deadline, hedgeAfterMs, timer, rpc, answered, failed);
    try {
      return outcome.get();
    } catch (ExecutionException e) {
      throw Status.fromThrowable(e.getCause()).asRuntimeException();
    } catch (InterruptedException e) {
      outcome.cancel(false); // the attempts still out are cancelled with it
      Thread.currentThread().interrupt();
      throw Status.CANCELLED.withDescription("interrupted").withCause(e).asRuntimeException();
    }
  }

  /**
   * Starts the call; its outcome completes as {@link #run} returns or throws (a {@link StatusRuntimeException}),
   * DEADLINE_EXCEEDED at the latest shortly after {@code deadline}. Once it is complete (or cancelled) the
   * attempts still out are cancelled.
   */
  static <T> CompletableFuture<T> start(List<ManagedChannel> channels, int start, Deadline deadline,
                                        long hedgeAfterMs, ScheduledExecutorService timer,
                                        BiFunction<ManagedChannel, Deadline, ListenableFuture<T>> rpc,
                                        IntConsumer answered, Failure failed) {
    HedgedCall<T> call = new HedgedCall<>(channels, start, deadline, hedgeAfterMs, timer, rpc, answered, failed);
    call.startNext();
    ScheduledFuture<?> timeout = timer.schedule(() -> call.result.completeExceptionally(
            Status.DEADLINE_EXCEEDED.withDescription("no endpoint answered in time").asRuntimeException()),
        Math.max(1, deadline.timeRemaining(TimeUnit.MILLISECONDS)) + 50, TimeUnit.MILLISECONDS);
    call.result.whenComplete((v, e) -> {
      timeout.cancel(false);
      call.cancelRest();
    });
    return call.result;
  }

  /** Sends the call to the next endpoint not tried yet; false when every endpoint has it. */
  private synchronized boolean startNext() {
    if (result.isDone() || attempts.size() == channels.size() || deadline.isExpired()) {
      return false;
    }
    int idx = (start + attempts.size()) % channels.size();
    ListenableFuture<T> f = rpc.apply(channels.get(idx), deadline);
    attempts.add(f);
    f.addListener(() -> settle(idx, f), MoreExecutors.directExecutor());
    if (attempts.size() < channels.size()) {
      timer.schedule(this::startNext, hedgeAfterMs, TimeUnit.MILLISECONDS);
    }
    return true;
  }

  private void settle(int idx, ListenableFuture<T> f) {
    try {
      T value = f.get();
      if (result.complete(value)) {
        answered.accept(idx);
      }
    } catch (ExecutionException | RuntimeException | InterruptedException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      StatusRuntimeException s = Status.fromThrowable(cause).asRuntimeException();
      Status.Code code = s.getStatus().getCode();
      if (code != Status.Code.UNAVAILABLE && code != Status.Code.DEADLINE_EXCEEDED && code != Status.Code.CANCELLED) {
        result.completeExceptionally(s); // a verdict
        return;
      }
      failed.failed(idx, NodeRefusal.answeredUnavailable(cause));
      boolean allFailed;
      synchronized (this) {
        failures++;
        last = s;
        allFailed = !startNext() && failures == attempts.size();
      }
      if (allFailed) {
        result.completeExceptionally(last);
      }
    }
  }

  private synchronized void cancelRest() {
    attempts.forEach(a -> a.cancel(true));
  }
}
