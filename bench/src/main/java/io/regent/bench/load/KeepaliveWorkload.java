package io.regent.bench.load;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * {@code keepalive}: hold {@code leases} leases alive. Lease k belongs to client {@code k mod C}; the client
 * renews it every TTL/3 on a fixed schedule that starts when its grant was sent (asynchronously, as a
 * lease-holding process does; renewals start while the other leases are still being granted), so latency
 * counts from the due time. An expiry answer is <em>spurious</em> when it arrives less than one TTL after the
 * lease's last acknowledged keepalive was sent (the service ended a lease before the time it had promised),
 * and <em>lost</em> otherwise (renewals did not get through within the TTL: the client fell behind its
 * schedule or the service answered too slowly). Leases of one client that fall due together are renewed in
 * one call where the target offers it (Regent's {@code KeepAliveMany}; etcd: one stream message each).
 */
final class KeepaliveWorkload {
  /** One lease's next renewal. */
  private record Due(int lease, long at) implements Delayed {
    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(at - System.nanoTime(), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed o) {
      return Long.compare(at, ((Due) o).at);
    }
  }

  private final Target[] targets;
  private final int leaseCount;
  private final long ttlMs;
  private final long periodNanos;
  private final LatencyStats stats;
  private final long[] ids;
  private final long[] lastAckSent;
  private final List<DelayQueue<Due>> queues = new ArrayList<>();
  final AtomicLong spurious = new AtomicLong();
  final AtomicLong lost = new AtomicLong();
  private long setupMs;

  KeepaliveWorkload(Target[] targets, int leases, long ttlMs, LatencyStats stats) {
    this.targets = targets;
    this.leaseCount = leases;
    this.ttlMs = ttlMs;
    this.periodNanos = ttlMs * 1_000_000L / 3;
    this.stats = stats;
    this.ids = new long[leases];
    this.lastAckSent = new long[leases];
    for (Target ignored : targets) {
      queues.add(new DelayQueue<>());
    }
  }

  /** Grants every lease, in parallel over all clients' connections; returns the time it took, ms. */
  long setup() throws Exception {
    long t0 = System.nanoTime();
    forAll(k -> {
      long sent = System.nanoTime();
      ids[k] = SetupGrants.grant(() -> targets[k % targets.length].grant(ttlMs));
      synchronized (lastAckSent) {
        lastAckSent[k] = sent;
      }
      queues.get(k % targets.length).add(new Due(k, sent + periodNanos));
    });
    setupMs = (System.nanoTime() - t0) / 1_000_000;
    return setupMs;
  }

  long setupMs() {
    return setupMs;
  }

  /** Client {@code c}'s renewal loop, while {@code running}. */
  void run(int c, BooleanSupplier running) {
    DelayQueue<Due> queue = queues.get(c);
    try {
      while (running.getAsBoolean()) {
        Due first = queue.poll(100, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        List<Due> batch = new ArrayList<>();
        batch.add(first);
        queue.drainTo(batch); // every other lease already due: renewed together, as a holder of many would
        long sentAt = System.nanoTime();
        long[] leases = new long[batch.size()];
        for (int i = 0; i < leases.length; i++) {
          leases[i] = ids[batch.get(i).lease()];
          queue.add(new Due(batch.get(i).lease(), batch.get(i).at() + periodNanos));
        }
        List<CompletableFuture<Boolean>> results = targets[c].keepAliveAsync(leases);
        for (int i = 0; i < leases.length; i++) {
          Due due = batch.get(i);
          results.get(i).whenComplete((alive, err) -> done(due.lease(), due.at(), sentAt, alive, err));
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void done(int lease, long due, long sentAt, Boolean alive, Throwable err) {
    if (err != null) {
      stats.error(err);
    } else if (alive) {
      stats.record(System.nanoTime() - due);
      synchronized (lastAckSent) {
        lastAckSent[lease] = Math.max(lastAckSent[lease], sentAt);
      }
    } else {
      long since;
      synchronized (lastAckSent) {
        since = System.nanoTime() - lastAckSent[lease];
      }
      (since < ttlMs * 1_000_000L ? spurious : lost).incrementAndGet();
      stats.error(new LeaseExpired());
    }
  }

  /** Revokes every lease still there (NOT_FOUND for those already gone is ignored). */
  void teardown() throws Exception {
    forAll(k -> {
      try {
        targets[k % targets.length].revoke(ids[k]);
      } catch (RuntimeException ignored) {
        // already expired or revoked
      }
    });
  }

  /** Counted under the error kind {@code LeaseExpired}. */
  static final class LeaseExpired extends RuntimeException {
    LeaseExpired() {
      super("lease expired", null, false, false);
    }
  }

  private interface LeaseTask {
    void run(int k) throws Exception;
  }

  private void forAll(LeaseTask task) throws Exception {
    int threads = Math.min(64, Math.max(16, targets.length));
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> parts = new ArrayList<>();
      for (int p = 0; p < threads; p++) {
        int first = p;
        parts.add(pool.submit(() -> {
          for (int k = first; k < leaseCount; k += threads) {
            task.run(k);
          }
          return null;
        }));
      }
      for (Future<?> f : parts) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
