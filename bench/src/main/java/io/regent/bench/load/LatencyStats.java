package io.regent.bench.load;

import io.grpc.StatusRuntimeException;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Latencies (HdrHistogram, ns, 3 significant digits) and errors by kind, shared by all clients. Values are
 * recorded into a {@link Recorder}; {@link #tick()} swaps out the interval histogram (for the progress line)
 * and adds it to the total once warm-up is over, so warm-up is never counted.
 */
final class LatencyStats {
  /** Largest latency tracked; longer ones are recorded as this. */
  static final long MAX_NANOS = TimeUnit.MINUTES.toNanos(5);

  private final Recorder recorder = new Recorder(MAX_NANOS, 3);
  private final Histogram total = new Histogram(MAX_NANOS, 3);
  private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();
  private volatile boolean measuring;
  private Histogram interval;

  /** Records one latency in nanoseconds. */
  void record(long nanos) {
    recorder.recordValue(Math.max(0, Math.min(nanos, MAX_NANOS)));
  }

  /** Counts an error by kind (gRPC status code, else exception class), unless still warming up. */
  void error(Throwable t) {
    if (measuring) {
      errors.computeIfAbsent(kind(t), k -> new LongAdder()).increment();
    }
  }

  /** The kind an error is counted under: the gRPC status code, else the exception's simple class name. */
  static String kind(Throwable t) {
    Throwable c = t;
    while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
      c = c.getCause();
    }
    if (c instanceof StatusRuntimeException e) {
      return e.getStatus().getCode().name();
    }
    return c.getClass().getSimpleName();
  }

  /** Ends the current interval: returns its histogram (valid until the next tick) and, if measuring, adds it. */
  synchronized Histogram tick() {
    interval = recorder.getIntervalHistogram(interval);
    if (measuring) {
      total.add(interval);
    }
    return interval;
  }

  /** Ends warm-up: what was recorded so far is dropped, everything after counts. */
  synchronized void startMeasuring() {
    tick();
    measuring = true;
  }

  /** Stops counting (call {@link #tick()} first to keep the last interval). */
  synchronized void stopMeasuring() {
    measuring = false;
  }

  /** Every latency recorded while measuring (up to the last tick). */
  synchronized Histogram total() {
    return total.copy();
  }

  /** Errors by kind while measuring, sorted by kind. */
  Map<String, Long> errors() {
    Map<String, Long> m = new TreeMap<>();
    errors.forEach((k, v) -> m.put(k, v.sum()));
    return m;
  }

  /** Total errors while measuring. */
  long errorCount() {
    return errors.values().stream().mapToLong(LongAdder::sum).sum();
  }
}
