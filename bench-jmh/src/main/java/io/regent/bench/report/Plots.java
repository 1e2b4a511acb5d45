package io.regent.bench.report;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** The PNG plots of the performance page: per workload, throughput vs clients and latency vs clients. */
final class Plots {
  private static final java.awt.Color[] PALETTE = {new java.awt.Color(0x1f77b4), new java.awt.Color(0xff7f0e),
      new java.awt.Color(0x2ca02c), new java.awt.Color(0xd62728), new java.awt.Color(0x9467bd),
      new java.awt.Color(0x8c564b)};

  private Plots() {
  }

  /** Writes {@code throughput-W.png} and {@code latency-W.png} for each workload W; returns the file names. */
  static List<String> write(List<Map<String, Object>> runs, Path dir) throws Exception {
    Set<String> workloads = new LinkedHashSet<>();
    Set<String> labels = new LinkedHashSet<>();
    runs.forEach(r -> {
      workloads.add(PerfReport.str(r, "workload"));
      labels.add(PerfReport.str(r, "label"));
    });
    List<String> files = new ArrayList<>();
    for (String w : workloads) {
      XYChart tput = chart(w + ": throughput vs clients", "ops/s");
      XYChart lat = chart(w + ": latency vs clients (solid p50, dashed p99)", "ms (log)");
      lat.getStyler().setYAxisLogarithmic(true);
      int li = 0;
      for (String label : labels) {
        java.awt.Color color = PALETTE[li++ % PALETTE.length];
        List<Map<String, Object>> points = runs.stream()
            .filter(r -> PerfReport.str(r, "workload").equals(w) && PerfReport.str(r, "label").equals(label))
            .sorted(Comparator.comparingDouble(r -> PerfReport.num(r, "clients"))).toList();
        if (points.isEmpty()) {
          continue;
        }
        double[] x = points.stream().mapToDouble(r -> PerfReport.num(r, "clients")).toArray();
        XYSeries t = tput.addSeries(label, x, points.stream().mapToDouble(r -> PerfReport.num(r, "throughput")).toArray());
        t.setLineColor(color);
        t.setMarkerColor(color);
        XYSeries p50 = lat.addSeries(label + " p50", x, positive(points, "p50_ms"));
        XYSeries p99 = lat.addSeries(label + " p99", x, positive(points, "p99_ms"));
        p50.setLineColor(color);
        p50.setMarkerColor(color);
        p99.setLineColor(color);
        p99.setLineStyle(new java.awt.BasicStroke(2f, java.awt.BasicStroke.CAP_BUTT, java.awt.BasicStroke.JOIN_ROUND,
            10f, new float[] {6f, 4f}, 0f));
        p99.setMarker(SeriesMarkers.NONE);
        p50.setMarker(SeriesMarkers.CIRCLE);
      }
      files.add(Charts.savePng(tput, dir, "throughput-" + w));
      files.add(Charts.savePng(lat, dir, "latency-" + w));
    }
    return files;
  }

  private static double[] positive(List<Map<String, Object>> points, String key) {
    return points.stream().mapToDouble(r -> Math.max(0.001, PerfReport.num(r, key))).toArray();
  }

  private static XYChart chart(String title, String yTitle) {
    XYChart c = Charts.xy(720, 420, title, "clients (log)", yTitle);
    c.getStyler().setXAxisLogarithmic(true);
    c.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideE);
    c.getStyler().setMarkerSize(6);
    return c;
  }

}
