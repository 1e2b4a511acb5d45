package io.regent.bench.load;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The outcome of one {@code regent bench} run and its two renderings (text, one JSON line).
 *
 * @param extras workload- and target-specific figures (e.g. {@code spurious_expiries}, {@code server_cpu_cores})
 */
public record BenchResult(String date, String label, String target, String workload, int clients, double rate,
    double seconds, Histogram latency, Map<String, Long> errors, Map<String, Object> extras) {

  /** Operations measured. */
  public long ops() {
    return latency.getTotalCount();
  }

  /** Operations per second over the measured window. */
  public double throughput() {
    return seconds <= 0 ? 0 : ops() / seconds;
  }

  /** A latency percentile in ms (0 when nothing was recorded). */
  public double ms(double percentile) {
    return ops() == 0 ? 0 : latency.getValueAtPercentile(percentile) / 1e6;
  }

  double maxMs() {
    return ops() == 0 ? 0 : latency.getMaxValue() / 1e6;
  }

  /** One JSON line (see {@link JsonLines}). */
  public String json() {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("date", date);
    j.put("label", label);
    j.put("target", target);
    j.put("workload", workload);
    j.put("clients", clients);
    j.put("mode", mode());
    j.put("rate", rate);
    j.put("seconds", round(seconds));
    j.put("ops", ops());
    j.put("throughput", round(throughput()));
    j.put("p50_ms", round(ms(50)));
    j.put("p90_ms", round(ms(90)));
    j.put("p99_ms", round(ms(99)));
    j.put("p999_ms", round(ms(99.9)));
    j.put("max_ms", round(maxMs()));
    j.put("errors", errors);
    j.putAll(extras);
    return JsonLines.line(j);
  }

  /**
   * closed (back to back), open (--rate, latency from due time), paced (keepalive: every TTL/3, from due time)
   * or events (rebalance: the latencies are the fan-out of each event to the members' streams).
   */
  String mode() {
    return switch (workload) {
      case "keepalive" -> "paced";
      case "rebalance" -> "events";
      default -> rate > 0 ? "open" : "closed";
    };
  }

  /** Human-readable lines. */
  public String text() {
    StringBuilder b = new StringBuilder();
    if (mode().equals("events")) {
      b.append(String.format(Locale.ROOT, "%s %s rebalance members=%d %.1fs%n", label, target, clients, seconds));
      b.append(String.format(Locale.ROOT, "fan-out ms (first stream to each other one) p50 %.3f  p99 %.3f  max %.3f%n",
          ms(50), ms(99), maxMs()));
      extras.forEach((k, v) -> b.append(k).append(' ').append(v).append('\n'));
      return b.toString().stripTrailing();
    }
    b.append(String.format(Locale.ROOT, "%s %s %s clients=%d %s %.1fs%n", label, target, workload, clients,
        mode().equals("closed") ? "closed loop" : mode() + " (latency from due time)"
            + (rate > 0 ? " rate=" + rate + "/s" : ""), seconds));
    b.append(String.format(Locale.ROOT, "throughput %.1f ops/s (%d ops)%n", throughput(), ops()));
    b.append(String.format(Locale.ROOT, "latency ms p50 %.3f  p90 %.3f  p99 %.3f  p99.9 %.3f  max %.3f%n",
        ms(50), ms(90), ms(99), ms(99.9), maxMs()));
    b.append("errors ").append(errors.isEmpty() ? "none" : errors.toString()).append('\n');
    extras.forEach((k, v) -> b.append(k).append(' ').append(v).append('\n'));
    return b.toString().stripTrailing();
  }

  static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }

  /** An ordered map for extras. */
  static Map<String, Object> newExtras() {
    return new LinkedHashMap<>();
  }
}
