package io.regent.bench.load;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.bench.load.Target.Held;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * {@code overload} (docs/performance.md, issue 22 item 4): the {@code keepalive} workload (its leases renewed
 * every TTL/3 by {@code --clients} clients: the run's latency figures are those renewals') while
 * {@code floodClients} more clients, each on its own connection, flood the service with linearizable reads and
 * campaigns (a fresh lease, then resign and revoke): closed loop, as fast as they are answered, or open loop at a
 * total offered rate (the "≥ 5× what the cluster sustains" is a rate; a closed-loop flood whose calls are
 * refused quickly offers only as much as the generator's CPU sends), and one well-behaved client reads a name every
 * {@link #POLITE_PERIOD_MS} ms. Reported besides the keepalive figures: the flood's
 * answered calls and refusals (RESOURCE_EXHAUSTED) with the refusals' latency, and the well-behaved reads'
 * latency. Every client of one run shares the load generator's identity unless the target is given client
 * certificates; the priority lanes do not need identities to keep the leases alive.
 */
final class OverloadWorkload {
  /** The well-behaved reader's period, ms. */
  static final long POLITE_PERIOD_MS = 10;

  private final Target[] flood;
  private final Target polite;
  private final String prefix;
  private final long ttlMs;
  private final double rate;
  private final Histogram refusals = histogram();
  private final Histogram politeReads = histogram();
  private final AtomicLong floodServed = new AtomicLong();
  private final AtomicLong floodRefused = new AtomicLong();
  private final AtomicLong floodFailed = new AtomicLong();
  private final AtomicLong politeFailed = new AtomicLong();
  private volatile boolean measuring;

  /**
   * @param flood one target (connection) per flooding client
   * @param polite the well-behaved reader's connection
   * @param prefix names under which this run works
   * @param rate the flood's total offered calls per second, open loop (a late call does not move the schedule:
   *     the client sends the calls it owes at once); 0 for closed loop
   */
  OverloadWorkload(Target[] flood, Target polite, String prefix, long ttlMs, double rate) {
    this.flood = flood;
    this.polite = polite;
    this.prefix = prefix;
    this.ttlMs = ttlMs;
    this.rate = rate;
  }

  /** Starts the flood and the well-behaved reader on daemon threads, until {@code running} turns false. */
  List<Thread> start(BooleanSupplier running) {
    String read = prefix + "read";
    polite.campaign(read, polite.grant(Math.max(ttlMs, 60_000)), "overload"); // lives through a short run
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < flood.length; i++) {
      int client = i;
      threads.add(daemon("flood-" + i, () -> floodLoop(client, read, running)));
    }
    threads.add(daemon("polite", () -> politeLoop(read, running)));
    return threads;
  }

  /** Ends warm-up: what was recorded so far is dropped. */
  void startMeasuring() {
    refusals.reset();
    politeReads.reset();
    floodServed.set(0);
    floodRefused.set(0);
    floodFailed.set(0);
    politeFailed.set(0);
    measuring = true;
  }

  /** Stops recording. */
  void stopMeasuring() {
    measuring = false;
  }

  /** The figures of the measured window, into the result's extras. */
  void report(Map<String, Object> extras, double seconds) {
    extras.put("flood_clients", (long) flood.length);
    extras.put("flood_offered_per_s", rate);
    extras.put("flood_served_per_s", BenchResult.round(floodServed.get() / seconds));
    extras.put("flood_refused_per_s", BenchResult.round(floodRefused.get() / seconds));
    extras.put("flood_failed", floodFailed.get());
    extras.put("flood_refusal_p50_ms", BenchResult.round(refusals.getValueAtPercentile(50) / 1e6));
    extras.put("flood_refusal_p99_ms", BenchResult.round(refusals.getValueAtPercentile(99) / 1e6));
    extras.put("polite_reads", politeReads.getTotalCount());
    extras.put("polite_read_p50_ms", BenchResult.round(politeReads.getValueAtPercentile(50) / 1e6));
    extras.put("polite_read_p99_ms", BenchResult.round(politeReads.getValueAtPercentile(99) / 1e6));
    extras.put("polite_failed", politeFailed.get());
  }

  private void floodLoop(int client, String read, BooleanSupplier running) {
    Target t = flood[client];
    String own = prefix + "flood" + client;
    long start = System.nanoTime();
    long n = 0;
    while (running.getAsBoolean()) {
      if (rate > 0) {
        try {
          ClientLoop.parkUntil(ClientLoop.due(start, n, client, flood.length, rate));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
      long t0 = System.nanoTime();
      try {
        if (n++ % 2 == 0) { // n also numbers the open-loop schedule's calls
          t.leaderRead(read);
        } else {
          Held held = t.campaignFresh(own, ttlMs, "flood");
          t.resignAndRevoke(held);
        }
        count(floodServed);
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() == Status.Code.RESOURCE_EXHAUSTED) {
          if (measuring) {
            floodRefused.incrementAndGet();
            refusals.recordValue(Math.min(System.nanoTime() - t0, LIMIT_NS));
          }
        } else {
          count(floodFailed);
        }
      } catch (RuntimeException e) {
        count(floodFailed);
      }
    }
  }

  private void politeLoop(String read, BooleanSupplier running) {
    long next = System.nanoTime();
    while (running.getAsBoolean()) {
      next += TimeUnit.MILLISECONDS.toNanos(POLITE_PERIOD_MS);
      long t0 = System.nanoTime();
      try {
        polite.leaderRead(read);
        if (measuring) {
          politeReads.recordValue(Math.min(System.nanoTime() - t0, LIMIT_NS));
        }
      } catch (RuntimeException e) {
        count(politeFailed);
      }
      long wait = next - System.nanoTime();
      if (wait > 0) {
        try {
          TimeUnit.NANOSECONDS.sleep(wait); // the reader's own pace, not a synchronisation
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  private void count(AtomicLong n) {
    if (measuring) {
      n.incrementAndGet();
    }
  }

  /** Longest latency tracked, ns (one minute). */
  private static final long LIMIT_NS = TimeUnit.MINUTES.toNanos(1);

  private static Histogram histogram() {
    return new ConcurrentHistogram(LIMIT_NS, 3);
  }

  private static Thread daemon(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    t.start();
    return t;
  }
}
