package io.regent.jepsen.report;

import io.regent.bench.report.Charts;
import io.regent.jepsen.history.History;
import io.regent.jepsen.history.Operation;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * {@code latency.png} (each completed operation: its latency against the time it was invoked, one
 * series per {@code :f} and outcome) and {@code rate.png} (completions per second, one line per {@code
 * :f}), made and saved by the bench-jmh module's {@link Charts}; nemesis windows are shaded on both.
 */
public final class Plots {
  private Plots() {
  }

  /** Writes both PNGs into {@code dir}. */
  public static void write(History h, String title, Path dir) throws IOException {
    Charts.savePng(latency(h, title), dir, "latency");
    Charts.savePng(rate(h, title), dir, "rate");
  }

  static XYChart latency(History h, String title) {
    XYChart chart = Charts.xy(1100, 550, title + ": latency", "time (s)", "latency (ms)");
    chart.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
    chart.getStyler().setMarkerSize(4);
    Map<String, List<double[]>> series = new TreeMap<>();
    double max = 1;
    for (Operation o : h.operations()) {
      if (o.completion() == null || o.invoke().time() == null || o.completion().time() == null) {
        continue;
      }
      double t = o.invoke().time() / 1e9;
      double ms = (o.completion().time() - o.invoke().time()) / 1e6;
      max = Math.max(max, ms);
      String name = o.f().name() + " " + o.completion().type().name().toLowerCase();
      series.computeIfAbsent(name, k -> new ArrayList<>()).add(new double[] {t, ms});
    }
    shade(chart, h, max);
    for (Map.Entry<String, List<double[]>> e : series.entrySet()) {
      add(chart, e.getKey(), e.getValue()).setMarker(SeriesMarkers.CIRCLE);
    }
    return chart;
  }

  static XYChart rate(History h, String title) {
    XYChart chart = Charts.xy(1100, 550, title + ": throughput", "time (s)", "completions per second");
    chart.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
    chart.getStyler().setMarkerSize(0);
    int seconds = (int) (TimelineHtml.endTime(h) / 1_000_000_000L) + 1;
    Map<String, double[]> counts = new TreeMap<>();
    for (Operation o : h.operations()) {
      if (o.completion() == null || o.completion().time() == null) {
        continue;
      }
      String name = o.f().name() + (o.outcome() == Operation.Outcome.OK ? " ok" : " fail/info");
      int s = (int) (o.completion().time() / 1_000_000_000L);
      counts.computeIfAbsent(name, k -> new double[seconds])[Math.min(s, seconds - 1)]++;
    }
    double max = 1;
    for (double[] c : counts.values()) {
      for (double v : c) {
        max = Math.max(max, v);
      }
    }
    shade(chart, h, max);
    for (Map.Entry<String, double[]> e : counts.entrySet()) {
      List<double[]> pts = new ArrayList<>();
      for (int s = 0; s < seconds; s++) {
        pts.add(new double[] {s + 0.5, e.getValue()[s]});
      }
      add(chart, e.getKey(), pts).setMarker(SeriesMarkers.NONE);
    }
    return chart;
  }

  /** One translucent area series per fault kind, up to {@code top} inside its windows, 0 outside. */
  private static void shade(XYChart chart, History h, double top) {
    Map<String, List<double[]>> byFault = new TreeMap<>();
    for (TimelineHtml.Window w : TimelineHtml.windows(h)) {
      List<double[]> pts = byFault.computeIfAbsent(w.fault(), k -> new ArrayList<>());
      double s = w.start() / 1e9;
      double e = w.end() / 1e9;
      pts.add(new double[] {s, 0});
      pts.add(new double[] {s, top});
      pts.add(new double[] {e, top});
      pts.add(new double[] {e, 0});
    }
    Color[] colors = {new Color(150, 90, 220, 50), new Color(220, 120, 60, 50), new Color(60, 140, 220, 50),
        new Color(200, 60, 120, 50), new Color(90, 160, 90, 50)};
    int i = 0;
    for (Map.Entry<String, List<double[]>> e : byFault.entrySet()) {
      XYSeries s = add(chart, "nemesis " + e.getKey(), e.getValue());
      s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Area);
      s.setMarker(SeriesMarkers.NONE);
      s.setFillColor(colors[i % colors.length]);
      s.setLineColor(colors[i++ % colors.length]);
    }
  }

  private static XYSeries add(XYChart chart, String name, List<double[]> pts) {
    double[] xs = new double[Math.max(1, pts.size())];
    double[] ys = new double[xs.length];
    for (int i = 0; i < pts.size(); i++) {
      xs[i] = pts.get(i)[0];
      ys[i] = pts.get(i)[1];
    }
    return chart.addSeries(name, xs, ys);
  }
}
