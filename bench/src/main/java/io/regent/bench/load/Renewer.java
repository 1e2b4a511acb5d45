package io.regent.bench.load;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** Keeps a few set-up leases alive for the length of a run: one keepalive per lease every TTL/3. */
final class Renewer implements AutoCloseable {
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread th = new Thread(r, "bench-renewer");
    th.setDaemon(true);
    return th;
  });
  private final long periodMs;
  private final AtomicLong failures = new AtomicLong();

  Renewer(long ttlMs) {
    this.periodMs = Math.max(1, ttlMs / 3);
  }

  /** Renews {@code lease} through {@code target} until closed. */
  void keep(Target target, long lease) {
    timer.scheduleAtFixedRate(() -> target.keepAliveAsync(lease).whenComplete((ok, err) -> {
      if (err != null || !Boolean.TRUE.equals(ok)) {
        failures.incrementAndGet();
      }
    }), periodMs, periodMs, TimeUnit.MILLISECONDS);
  }

  /** Keepalives that failed or found the lease gone. */
  long failures() {
    return failures.get();
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
