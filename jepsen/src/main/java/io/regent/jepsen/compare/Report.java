package io.regent.jepsen.compare;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * Renders {@code comparison.json}: the markdown tables of {@code comparison.md} and the plots ({@code
 * throughput.png}, {@code latency-p99.png}, {@code availability.png}, {@code failover.png}). Every missing or
 * failed number is shown as {@code –} or {@code error}, never invented.
 */
final class Report {
  private Report() {
  }

  /** The tables, headed by the run's date, machine, command and load. */
  static String markdown(JsonObject root) {
    JsonObject run = root.getAsJsonObject("run");
    StringBuilder b = new StringBuilder();
    b.append("Run ").append(s(run, "date")).append(" (").append(s(run, "mode")).append("), `")
        .append(s(run, "command")).append("`, host ").append(s(run, "host")).append(" (").append(s(run, "cores"))
        .append(" cores, Linux ").append(s(run, "kernel")).append(", ").append(s(run, "java")).append(", ")
        .append(s(run, "etcd")).append("), commit ").append(s(run, "git")).append(", load average ")
        .append(s(run, "load_avg_start")).append(" at the start, ").append(s(run, "load_avg_end"))
        .append(" at the end, ").append(s(run, "seconds")).append(" s.\n\n");
    List<JsonObject> targets = new ArrayList<>();
    root.getAsJsonArray("targets").forEach(e -> targets.add(e.getAsJsonObject()));
    for (JsonObject t : targets) {
      if (!"ok".equals(s(t, "status"))) {
        b.append("- **").append(s(t, "label")).append("**: ").append(s(t, "status")).append(": ")
            .append(s(t, "reason")).append('\n');
      }
    }
    b.append("\n**Cost**: campaign (grant + campaign + resign + revoke), closed loop\n\n")
        .append("| target | clients | ops/s | p50 ms | p99 ms | max ms | errors | server CPU (cores) | server RSS (MiB) "
            + "| disk bytes/op | load avg |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (JsonObject t : targets) {
      for (JsonObject p : list(t, "cost", "campaign")) {
        b.append(row(s(t, "label"), s(p, "clients"), num(p, "throughput"), num(p, "p50_ms"), num(p, "p99_ms"),
            num(p, "max_ms"), p.has("error") ? "error: " + s(p, "error") : s(p, "errors"), num(p, "server_cpu_cores"),
            num(p, "server_rss_mib"), num(p, "disk_bytes_per_op"), s(p, "load_avg")));
      }
    }
    b.append("\n**Per-key ceiling** at ").append(Cost.CEILING_CLIENTS).append(" clients: one hot name (handover: "
        + "every client queues for it; ops = handovers) against many names (campaign, one name per client)\n\n")
        .append("| target | one name ops/s | one name p50 ms | many names ops/s | load avg |\n|---|---|---|---|---|\n");
    for (JsonObject t : targets) {
      JsonObject one = obj(t, "ceiling", "one_name");
      JsonObject many = obj(t, "ceiling", "many_names");
      b.append(row(s(t, "label"), num(one, "throughput"), num(one, "p50_ms"), num(many, "throughput"),
          s(one, "load_avg")));
    }
    b.append("\n**Failover**: kill -9 of the leader / single writer -> first grant of a campaign sent after it\n\n")
        .append("| target | fault | kill -> next grant (ms) | recovered | load avg |\n|---|---|---|---|---|\n");
    for (JsonObject t : targets) {
      JsonObject f = obj(t, "failover");
      b.append(row(s(t, "label"), f.has("error") ? "error: " + s(f, "error") : s(f, "fault"),
          num(f, "kill_to_next_grant_ms"), recovered(f), s(f, "load_avg")));
    }
    b.append("\n**Availability under faults**: ").append(Availability.CLIENTS).append(" probe clients, a round ("
        + "campaign, then a linearizable leader read) every ").append(Prober.PERIOD_MS).append(" ms each, ")
        .append(Availability.DEADLINE.toMillis()).append(" ms deadline per call; the fault held for the window\n\n")
        .append("| target | scenario | fault | window s | campaign ok | leader ok | longest gap without a grant (ms) "
            + "| heal -> grant (ms) | recovered | load avg |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (JsonObject t : targets) {
      for (JsonObject a : list(t, "availability")) {
        if (a.has("applicable") && !a.get("applicable").getAsBoolean()) {
          b.append(row(s(t, "label"), s(a, "scenario"), "n/a: " + s(a, "reason"), "", "", "", "", "", "", ""));
          continue;
        }
        JsonObject w = obj(a, "during_fault");
        b.append(row(s(t, "label"), s(a, "scenario"), a.has("error") ? "error: " + s(a, "error") : s(a, "fault"),
            num(a, "window_ms").equals("–") ? "–" : String.valueOf(a.get("window_ms").getAsLong() / 1000),
            frac(w, "campaign"), frac(w, "leader"), num(w, "longest_gap_ms"), num(a, "first_grant_after_heal_ms"),
            recovered(a), s(a, "load_avg")));
      }
    }
    b.append("\n**Zombie writer**: A elected, then silent past its TTL; B elected; A writes ").append(Zombie.ZOMBIE_WRITES)
        .append(" times with its old token to a strictly fenced resource\n\n")
        .append("| target | token A | token B | A silent -> B elected (ms) | zombie writes rejected | load avg |\n"
            + "|---|---|---|---|---|---|\n");
    for (JsonObject t : targets) {
      JsonObject z = obj(t, "zombie");
      b.append(row(s(t, "label"), num(z, "token_a"), num(z, "token_b"), num(z, "takeover_ms"),
          z.has("error") ? "error: " + s(z, "error") : s(z, "zombie_rejected") + " of " + s(z, "zombie_writes"),
          s(z, "load_avg")));
    }
    b.append("\n**Safety**: Jepsen runs (").append(Safety.CONCURRENCY).append(" clients, TTL 3 s)\n\n")
        .append("| target | workload | nemesis | s | ops | faults injected | verdict | checkers | notes |\n"
            + "|---|---|---|---|---|---|---|---|---|\n");
    for (JsonObject t : targets) {
      for (JsonObject j : list(t, "safety")) {
        String notes = j.has("reason") ? s(j, "reason") : j.has("error") ? s(j, "error") : s(j, "notes");
        b.append(row(s(t, "label"), s(j, "workload"), s(j, "nemesis"), s(j, "time_limit_s"), s(j, "operations"),
            s(j, "faults"), "**" + s(j, "valid?") + "**", s(j, "checkers"), notes));
      }
    }
    return b.toString();
  }

  /** Writes the four PNGs into {@code dir}. */
  static void plots(JsonObject root, Path dir) throws IOException {
    System.setProperty("java.awt.headless", "true");
    XYChart tput = new XYChartBuilder().width(900).height(500).title("campaign throughput (closed loop)")
        .xAxisTitle("clients").yAxisTitle("ops/s").build();
    XYChart p99 = new XYChartBuilder().width(900).height(500).title("campaign latency p99")
        .xAxisTitle("clients").yAxisTitle("ms").build();
    tput.getStyler().setXAxisLogarithmic(true);
    p99.getStyler().setXAxisLogarithmic(true);
    p99.getStyler().setYAxisLogarithmic(true);
    CategoryChart avail = new CategoryChartBuilder().width(1100).height(500)
        .title("campaign calls that succeeded while the fault was held").xAxisTitle("scenario").yAxisTitle("fraction")
        .build();
    CategoryChart fail = new CategoryChartBuilder().width(700).height(450)
        .title("kill -9 of the leader / single writer -> next grant").xAxisTitle("target").yAxisTitle("ms").build();
    avail.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
    List<String> failLabels = new ArrayList<>();
    List<Double> failMs = new ArrayList<>();
    for (JsonElement e : root.getAsJsonArray("targets")) {
      JsonObject t = e.getAsJsonObject();
      String label = s(t, "label");
      List<Double> x = new ArrayList<>();
      List<Double> y = new ArrayList<>();
      List<Double> l = new ArrayList<>();
      for (JsonObject p : list(t, "cost", "campaign")) {
        if (p.has("throughput")) {
          x.add(p.get("clients").getAsDouble());
          y.add(p.get("throughput").getAsDouble());
          l.add(Math.max(0.01, p.get("p99_ms").getAsDouble()));
        }
      }
      if (!x.isEmpty()) {
        tput.addSeries(label, x, y);
        p99.addSeries(label, x, l);
      }
      List<String> sc = new ArrayList<>();
      List<Double> fr = new ArrayList<>();
      for (JsonObject a : list(t, "availability")) {
        JsonObject w = obj(a, "during_fault");
        sc.add(s(a, "scenario"));
        fr.add(w.has("campaign_fraction") ? Math.max(0, w.get("campaign_fraction").getAsDouble()) : 0.0);
      }
      if (!sc.isEmpty()) {
        avail.addSeries(label, sc, fr);
      }
      JsonObject f = obj(t, "failover");
      if (f.has("kill_to_next_grant_ms")) {
        failLabels.add(label);
        failMs.add(f.get("kill_to_next_grant_ms").getAsDouble());
      }
    }
    if (!failLabels.isEmpty()) {
      fail.addSeries("kill -> next grant", failLabels, failMs);
    }
    save(tput.getSeriesMap().isEmpty() ? null : tput, dir.resolve("throughput.png"));
    save(p99.getSeriesMap().isEmpty() ? null : p99, dir.resolve("latency-p99.png"));
    save(avail.getSeriesMap().isEmpty() ? null : avail, dir.resolve("availability.png"));
    save(failLabels.isEmpty() ? null : fail, dir.resolve("failover.png"));
  }

  private static void save(org.knowm.xchart.internal.chartpart.Chart<?, ?> chart, Path file) throws IOException {
    if (chart != null) {
      BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    }
  }

  private static String row(String... cells) {
    return "| " + String.join(" | ", cells) + " |\n";
  }

  /** A member as text; {@code –} when absent. */
  static String s(JsonObject o, String k) {
    if (o == null || !o.has(k) || o.get(k).isJsonNull()) {
      return "–";
    }
    JsonElement e = o.get(k);
    return (e.isJsonPrimitive() ? e.getAsString() : e.toString()).replace("|", "/").replace("\n", " ");
  }

  private static String num(JsonObject o, String k) {
    if (o == null || !o.has(k) || !o.get(k).isJsonPrimitive() || !o.get(k).getAsJsonPrimitive().isNumber()) {
      return "–";
    }
    double v = o.get(k).getAsDouble();
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? String.valueOf((long) v) : String.format(Locale.ROOT, "%.2f", v);
  }

  private static String frac(JsonObject w, String f) {
    if (!w.has(f + "_calls")) {
      return "–";
    }
    long calls = w.get(f + "_calls").getAsLong();
    return calls == 0 ? "no calls" : String.format(Locale.ROOT, "%.0f%% (%d/%d)",
        100.0 * w.get(f + "_ok").getAsLong() / calls, w.get(f + "_ok").getAsLong(), calls);
  }

  private static String recovered(JsonObject o) {
    if (!o.has("recovered")) {
      return "–";
    }
    if (o.get("recovered").getAsBoolean()) {
      return "yes";
    }
    return "**no**: " + s(o, "recovery_problem") + (o.has("restarted") ? "; restarted " + s(o, "restarted")
        + ", then " + (o.get("recovered_after_restart").getAsBoolean() ? "serving" : "still not serving") : "");
  }

  private static JsonObject obj(JsonObject o, String... path) {
    JsonElement e = o;
    for (String k : path) {
      if (e == null || !e.isJsonObject() || !e.getAsJsonObject().has(k)) {
        return new JsonObject();
      }
      e = e.getAsJsonObject().get(k);
    }
    return e != null && e.isJsonObject() ? e.getAsJsonObject() : new JsonObject();
  }

  private static List<JsonObject> list(JsonObject o, String... path) {
    JsonElement e = o;
    for (String k : path) {
      if (e == null || !e.isJsonObject() || !e.getAsJsonObject().has(k)) {
        return List.of();
      }
      e = e.getAsJsonObject().get(k);
    }
    List<JsonObject> out = new ArrayList<>();
    if (e != null && e.isJsonArray()) {
      e.getAsJsonArray().forEach(x -> out.add(x.getAsJsonObject()));
    }
    return out;
  }
}
