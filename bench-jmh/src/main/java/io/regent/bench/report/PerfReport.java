package io.regent.bench.report;

import io.regent.bench.load.JsonLines;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * Turns the JSON lines of one {@code scripts/perf-report.sh} run into the table of {@code docs/performance.md}
 * (replacing what stands between its {@code <!-- results:begin -->} and {@code <!-- results:end -->} markers)
 * and the PNG plots beside it. Usage: {@code PerfReport RESULTS.jsonl PAGE.md PNG_DIR}.
 */
public final class PerfReport {
  private PerfReport() {
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: PerfReport RESULTS.jsonl PAGE.md PNG_DIR");
      System.exit(2);
    }
    List<Map<String, Object>> all = JsonLines.read(Path.of(args[0]));
    List<Map<String, Object>> runs = all.stream()
        .filter(r -> r.containsKey("workload") && !str(r, "label").endsWith("-failover")).toList();
    List<Map<String, Object>> failovers = all.stream().filter(r -> str(r, "label").endsWith("-failover")).toList();
    List<Map<String, Object>> other = all.stream().filter(r -> !r.containsKey("workload")).toList();
    Path pngDir = Path.of(args[2]);
    Files.createDirectories(pngDir);
    List<String> pngs = Plots.write(runs, pngDir);
    String table = table(runs) + "\n" + ratios(runs) + "\n" + failover(failovers) + notes(other);
    Path page = Path.of(args[1]);
    String text = Files.readString(page);
    int b = text.indexOf("<!-- results:begin -->");
    int e = text.indexOf("<!-- results:end -->");
    if (b < 0 || e < b) {
      throw new IllegalStateException(page + " lacks the <!-- results:begin --> / <!-- results:end --> markers");
    }
    Files.writeString(page, text.substring(0, b) + "<!-- results:begin -->\n" + table + "<!-- results:end -->"
        + text.substring(e + "<!-- results:end -->".length()));
    System.out.println("wrote " + page + " and " + pngs);
  }

  static String table(List<Map<String, Object>> runs) {
    StringBuilder b = new StringBuilder();
    b.append("| workload | target | clients | ops/s | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | errors "
        + "| server CPU (cores) [run-queue wait] | server RSS MiB | load1 | time (UTC) |\n");
    b.append("|---|---|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|--:|---|\n");
    List<Map<String, Object>> sorted = new ArrayList<>(runs);
    sorted.sort(Comparator.comparing((Map<String, Object> r) -> str(r, "workload"))
        .thenComparing(r -> num(r, "clients")).thenComparing(r -> str(r, "label")));
    for (Map<String, Object> r : sorted) {
      String errors = String.valueOf(r.get("errors")).replace("{}", "0");
      if (r.containsKey("spurious_expiries")) {
        errors += String.format(Locale.ROOT, "; %.0f leases, spurious %.0f, lost %.0f", num(r, "leases"),
            num(r, "spurious_expiries"), num(r, "lost_leases"));
      }
      b.append(String.format(Locale.ROOT, "| %s | %s | %.0f | %.0f | %.2f | %.2f | %.2f | %.2f | %.1f | %s | %s | %s "
              + "| %.1f | %s |%n", str(r, "workload"), str(r, "label"), num(r, "clients"), num(r, "throughput"),
          num(r, "p50_ms"), num(r, "p90_ms"), num(r, "p99_ms"), num(r, "p999_ms"), num(r, "max_ms"), errors,
          opt(r, "server_cpu_cores", "%.2f") + (r.containsKey("server_runqueue_wait")
              ? String.format(Locale.ROOT, " [%.2f]", num(r, "server_runqueue_wait")) : ""),
          opt(r, "server_rss_mib", "%.0f"), num(r, "load1"),
          str(r, "date").replace("T", " ")));
    }
    return b.toString();
  }

  /** Regent 3 nodes against etcd 3 nodes: throughput ratio and p50 ratio per workload and client count. */
  static String ratios(List<Map<String, Object>> runs) {
    StringBuilder b = new StringBuilder("| workload | clients | regent-3 / etcd-3 throughput | regent-3 / etcd-3 p50 |\n"
        + "|---|--:|--:|--:|\n");
    TreeSet<String> keys = new TreeSet<>();
    runs.forEach(r -> keys.add(str(r, "workload") + "\t" + String.format(Locale.ROOT, "%04.0f", num(r, "clients"))));
    for (String k : keys) {
      String[] p = k.split("\t");
      Map<String, Object> regent = find(runs, p[0], p[1], "regent-3");
      Map<String, Object> etcd = find(runs, p[0], p[1], "etcd-3");
      if (regent != null && etcd != null && num(etcd, "throughput") > 0 && num(etcd, "p50_ms") > 0) {
        b.append(String.format(Locale.ROOT, "| %s | %d | %.2f | %.2f |%n", p[0], Integer.parseInt(p[1]),
            num(regent, "throughput") / num(etcd, "throughput"), num(regent, "p50_ms") / num(etcd, "p50_ms")));
      }
    }
    return b.toString();
  }

  /** Failover runs: the longest latency (from due time) is the outage clients saw after kill -9 of the leader. */
  static String failover(List<Map<String, Object>> runs) {
    if (runs.isEmpty()) {
      return "";
    }
    StringBuilder b = new StringBuilder("| failover (kill -9 of the Raft leader, campaign at 20/s open loop) "
        + "| longest latency ms | p99 ms | p50 ms | errors | time (UTC) |\n|---|--:|--:|--:|---|---|\n");
    for (Map<String, Object> r : runs) {
      b.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %.1f | %s | %s |%n", str(r, "label"), num(r, "max_ms"),
          num(r, "p99_ms"), num(r, "p50_ms"), String.valueOf(r.get("errors")).replace("{}", "0"),
          str(r, "date").replace("T", " ")));
    }
    return b.append('\n').toString();
  }

  /** The floor measurements and any other lines, verbatim. */
  static String notes(List<Map<String, Object>> other) {
    StringBuilder b = new StringBuilder();
    for (Map<String, Object> o : other) {
      b.append("- `").append(o).append("`\n");
    }
    return b.toString();
  }

  private static Map<String, Object> find(List<Map<String, Object>> runs, String workload, String clients,
      String label) {
    return runs.stream().filter(r -> str(r, "workload").equals(workload) && str(r, "label").equals(label)
        && num(r, "clients") == Integer.parseInt(clients)).reduce((a, c) -> c).orElse(null);
  }

  static String str(Map<String, Object> r, String k) {
    return String.valueOf(r.get(k));
  }

  static double num(Map<String, Object> r, String k) {
    return r.get(k) instanceof Number n ? n.doubleValue() : 0;
  }

  private static String opt(Map<String, Object> r, String k, String format) {
    return r.containsKey(k) ? String.format(Locale.ROOT, format, num(r, k)) : "";
  }
}
