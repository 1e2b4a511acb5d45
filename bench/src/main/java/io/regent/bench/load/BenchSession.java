package io.regent.bench.load;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Several benchmark points in one long-lived load-generator JVM (so that its JIT is warm too), after an
 * optional settle phase that loads the target until its throughput stops improving (the servers' JIT warm-up;
 * docs/performance.md, method).
 */
public final class BenchSession {
  /** A settle window's throughput must grow by more than this fraction over the previous one to go on. */
  static final double STILL_IMPROVING = 0.03;

  private BenchSession() {
  }

  /**
   * Runs {@code warm} in windows of {@code window} for at least {@code min}, then until a window's throughput
   * is within {@link #STILL_IMPROVING} of the best so far, or {@code max} has passed; returns each window's
   * throughput (ops/s), the warm-up curve. A floor exists because on 2 cores a fresh 3-node cluster was still
   * getting faster after 60 s while single windows had already looked flat (docs/performance.md, method).
   */
  public static List<Double> settle(BenchRun.Config warm, Duration window, Duration min, Duration max,
      PrintWriter progress) throws Exception {
    List<Double> curve = new ArrayList<>();
    BenchRun.Config w = new BenchRun.Config(warm.target(), warm.endpoints(), warm.workload(), warm.clients(), window,
        Duration.ZERO, warm.rate(), warm.leases(), warm.ttlMs(), null, warm.label() + "-settle", warm.partitions(),
        warm.members(), warm.floodClients(), warm.tls(), warm.floodTls(), warm.tenant());
    long start = System.nanoTime();
    long floor = start + min.toNanos();
    long deadline = start + Math.max(min.toNanos(), max.toNanos());
    double best = 0;
    while (System.nanoTime() < deadline) {
      double t = new BenchRun(w, null).run().throughput();
      curve.add(BenchResult.round(t));
      if (progress != null) {
        progress.printf(Locale.ROOT, "[bench %s settle] %s c=%d window %d: %.0f ops/s%n", warm.label(),
            warm.workload(), warm.clients(), curve.size(), t);
        progress.flush();
      }
      if (curve.size() >= 2 && System.nanoTime() >= floor && t <= best * (1 + STILL_IMPROVING)) {
        break;
      }
      best = Math.max(best, t);
    }
    return curve;
  }

  /** Runs each point in order, handing every result to {@code out} as soon as it is measured. */
  public static void run(List<BenchRun.Config> points, PrintWriter progress, Consumer<BenchResult> out)
      throws Exception {
    for (BenchRun.Config point : points) {
      out.accept(new BenchRun(point, progress).run());
    }
  }
}
