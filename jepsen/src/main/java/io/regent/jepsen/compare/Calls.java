package io.regent.jepsen.compare;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Client calls under a deadline chosen here, whatever the client's own (Regent's blocking campaign has
 * none; etcd's calls allow 15 s): a call still running at the deadline is abandoned on its daemon thread
 * and counts as failed, as it does for a user whose request timed out.
 */
final class Calls {
  private static final ExecutorService POOL = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "compare-call");
    t.setDaemon(true);
    return t;
  });

  private Calls() {
  }

  /**
   * Runs {@code call} and returns its result.
   *
   * @throws TimeoutException when it did not finish within {@code deadline}
   * @throws Exception what the call threw
   */
  static <T> T within(Duration deadline, Callable<T> call) throws Exception {
    Future<T> f = POOL.submit(call);
    try {
      return f.get(deadline.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw e.getCause() instanceof Exception x ? x : e;
    } catch (TimeoutException e) {
      f.cancel(true);
      throw e;
    }
  }
}
