package io.regent.jepsen.compare;

import io.grpc.StatusRuntimeException;
import io.regent.bench.load.Target;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * The availability probe: {@code threads} clients, each paced to one round every {@value #PERIOD_MS} ms,
 * where a round is a {@code campaign} (grant a lease, campaign for a fresh name: a grant) and a
 * linearizable {@code leader} read of that name, then resign and revoke (not counted). Every call has the
 * deadline {@code deadline}; after a failure the client moves to the next endpoint, as a client with a list
 * of endpoints does. Every counted call is kept with its start and end ({@link System#nanoTime()}).
 */
final class Prober implements AutoCloseable {
  /** One counted call: {@code campaign} or {@code leader}, its start and end in ns, and whether it succeeded. */
  record Call(String f, long start, long end, boolean ok) {
  }

  static final long PERIOD_MS = 50;
  private final String kind;
  private final List<String> endpoints;
  private final long ttlMs;
  private final Duration deadline;
  private final List<Call> calls = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private final String prefix = "compare/" + Integer.toHexString(ThreadLocalRandom.current().nextInt()) + "/";
  private volatile boolean running = true;

  /** Starts {@code threads} probe clients against {@code endpoints} with the {@code kind} client. */
  Prober(String kind, List<String> endpoints, int threads, long ttlMs, Duration deadline) {
    this.kind = kind;
    this.endpoints = List.copyOf(endpoints);
    this.ttlMs = ttlMs;
    this.deadline = deadline;
    for (int i = 0; i < threads; i++) {
      int client = i;
      Thread t = new Thread(() -> loop(client), "compare-probe-" + i);
      t.setDaemon(true);
      this.threads.add(t);
      t.start();
    }
  }

  private void loop(int client) {
    int n = endpoints.size();
    Target[] targets = new Target[n];
    int at = client % n;
    long next = System.nanoTime();
    try {
      for (long k = 0; running; k++) {
        next += PERIOD_MS * 1_000_000;
        Target t = targets[at] != null ? targets[at] : (targets[at] = Target.connect(kind, endpoints, at));
        if (!round(t, prefix + client + "/" + k)) {
          at = (at + 1) % n;
        }
        LockSupport.parkNanos(next - System.nanoTime());
      }
    } finally {
      for (Target t : targets) {
        if (t != null) {
          t.close();
        }
      }
    }
  }

  /** One round; false when a call failed. */
  private boolean round(Target t, String name) {
    long s = System.nanoTime();
    Target.Held held;
    try {
      long lease = Calls.within(deadline, () -> t.grant(ttlMs));
      held = Calls.within(deadline, () -> t.campaign(name, lease, "probe"));
      record(new Call("campaign", s, System.nanoTime(), true));
    } catch (Exception e) {
      record(new Call("campaign", s, System.nanoTime(), false));
      return false;
    }
    s = System.nanoTime();
    boolean ok = true;
    try {
      Calls.within(deadline, () -> t.leaderRead(name));
    } catch (Exception e) {
      ok = false;
    }
    record(new Call("leader", s, System.nanoTime(), ok));
    try {
      Calls.within(deadline, () -> {
        t.resign(held);
        t.revoke(held.lease());
        return null;
      });
    } catch (Exception e) {
      // not counted: the lease expires on its own
    }
    return ok;
  }

  private synchronized void record(Call c) {
    if (running) {
      calls.add(c);
    }
  }

  /** The calls so far. */
  synchronized List<Call> calls() {
    return List.copyOf(calls);
  }

  /**
   * Time from {@code from} (ns) to the end of the first successful campaign started at or after it, ms;
   * empty when there is none yet.
   */
  OptionalLong firstGrantAfter(long from) {
    return calls().stream().filter(c -> c.f().equals("campaign") && c.ok() && c.start() >= from)
        .mapToLong(c -> (c.end() - from) / 1_000_000).min();
  }

  /** Stops the clients (their abandoned calls finish on their own). */
  @Override
  public void close() throws InterruptedException {
    running = false;
    for (Thread t : threads) {
      t.join(deadline.toMillis() * 4 + 1000);
    }
  }

  /** A short name for an error: the gRPC status code, "timeout", or the exception's class. */
  static String kind(Throwable e) {
    Throwable c = e;
    while (c.getCause() != null && !(c instanceof StatusRuntimeException)) {
      c = c.getCause();
    }
    if (c instanceof StatusRuntimeException s) {
      return s.getStatus().getCode().name();
    }
    return e instanceof TimeoutException ? "timeout" : c.getClass().getSimpleName();
  }
}
