package io.regent.jepsen.report;

import io.regent.jepsen.history.EdnWriter;
import io.regent.jepsen.history.History;
import io.regent.jepsen.history.Op;
import io.regent.jepsen.history.Operation;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * {@code timeline.html}: one self-contained page (no scripts, no external files) with one row per
 * process, each operation a bar from its invoke to its completion (green ok, red fail, orange info,
 * grey never completed; hover for the ops), and every nemesis window ({@code :start-x} to {@code
 * :stop-x}) shaded across all rows.
 */
public final class TimelineHtml {
  private static final int ROW = 18;
  private static final int LEFT = 70;

  private TimelineHtml() {
  }

  /** A nemesis window in test nanoseconds. */
  public record Window(String fault, long start, long end, Object value) {
  }

  /** Writes the page. */
  public static void write(History h, String title, Path file) throws IOException {
    Files.writeString(file, render(h, title), StandardCharsets.UTF_8);
  }

  /** The nemesis windows of a history: each {@code :start-x} to the next {@code :stop-x} (or the end). */
  public static List<Window> windows(History h) {
    long end = endTime(h);
    List<Window> out = new ArrayList<>();
    Map<String, Op> open = new HashMap<>();
    for (Op op : h.nemesis()) {
      String f = op.f().name();
      if (f.startsWith("start-")) {
        open.put(f.substring(6), op);
      } else if (f.startsWith("stop-") && open.containsKey(f.substring(5))) {
        Op s = open.remove(f.substring(5));
        out.add(new Window(f.substring(5), time(s), time(op), s.value()));
      }
    }
    open.forEach((fault, s) -> out.add(new Window(fault, time(s), end, s.value())));
    return out;
  }

  static String render(History h, String title) {
    long end = Math.max(1, endTime(h));
    double seconds = end / 1e9;
    double scale = Math.max(8, Math.min(60, 1600 / Math.max(1, seconds)));
    TreeSet<Long> processes = new TreeSet<>();
    h.operations().forEach(o -> processes.add(o.process()));
    Map<Long, Integer> row = new HashMap<>();
    int r = 0;
    for (long p : processes) {
      row.put(p, r++);
    }
    int height = Math.max(1, r) * ROW + 30;
    int width = (int) (seconds * scale) + LEFT + 40;
    StringBuilder b = new StringBuilder(64 * 1024);
    b.append("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>").append(esc(title))
        .append("</title><style>body{font:12px sans-serif;margin:10px}")
        .append("#t{position:relative;border-top:1px solid #999}")
        .append(".op{position:absolute;height:").append(ROW - 4).append("px;border-radius:2px;opacity:.85}")
        .append(".ok{background:#3a3}.fail{background:#d33}.info{background:#f90}.open{background:#999}")
        .append(".nem{position:absolute;top:0;background:rgba(120,80,200,.15);border-left:1px solid #85c;")
        .append("border-right:1px solid #85c}.nl{position:absolute;top:-16px;color:#639;white-space:nowrap}")
        .append(".lab{position:absolute;left:0;width:").append(LEFT - 6).append("px;text-align:right;color:#444}")
        .append(".tick{position:absolute;top:0;border-left:1px dotted #ccc;color:#888}")
        .append("</style></head><body><h3>").append(esc(title)).append("</h3><p>")
        .append(h.operations().size()).append(" operations, ").append(processes.size())
        .append(" processes, ").append(String.format("%.1f", seconds))
        .append(" s. Bars: <span style=\"color:#3a3\">ok</span>, <span style=\"color:#d33\">fail</span>, ")
        .append("<span style=\"color:#f90\">info</span>, <span style=\"color:#999\">no completion</span>; ")
        .append("shaded: nemesis windows. Hover a bar for its ops.</p>");
    b.append("<div id=\"t\" style=\"width:").append(width).append("px;height:").append(height)
        .append("px;margin-top:20px\">");
    int step = seconds > 200 ? 20 : seconds > 60 ? 10 : 5;
    for (int s = 0; s <= seconds; s += step) {
      b.append("<div class=\"tick\" style=\"left:").append(x(s * 1_000_000_000L, scale)).append("px;height:")
          .append(height).append("px\">").append(s).append("s</div>");
    }
    for (Window w : windows(h)) {
      b.append("<div class=\"nem\" style=\"left:").append(x(w.start(), scale)).append("px;width:")
          .append(Math.max(1, x(w.end(), scale) - x(w.start(), scale))).append("px;height:").append(height)
          .append("px\" title=\"").append(esc(w.fault() + " " + EdnWriter.writeValue(w.value())))
          .append("\"><span class=\"nl\">").append(esc(w.fault())).append("</span></div>");
    }
    for (long p : processes) {
      b.append("<div class=\"lab\" style=\"top:").append(row.get(p) * ROW + 20).append("px\">p")
          .append(p).append("</div>");
    }
    for (Operation o : h.operations()) {
      long s = time(o.invoke());
      long e = o.completion() == null ? end : time(o.completion());
      String cls = o.completion() == null ? "open" : o.completion().type().name().toLowerCase();
      String tip = EdnWriter.writeOp(o.invoke()) + (o.completion() == null ? "" : "\n" + EdnWriter.writeOp(o.completion()));
      b.append("<div class=\"op ").append(cls).append("\" style=\"left:").append(x(s, scale))
          .append("px;top:").append(row.get(o.process()) * ROW + 22).append("px;width:")
          .append(Math.max(2, x(e, scale) - x(s, scale))).append("px\" title=\"").append(esc(tip))
          .append("\"></div>");
    }
    return b.append("</div></body></html>\n").toString();
  }

  private static int x(long nanos, double scale) {
    return LEFT + (int) Math.round(nanos / 1e9 * scale);
  }

  private static long time(Op op) {
    return op.time() == null ? 0 : op.time();
  }

  /** The time of the last event. */
  static long endTime(History h) {
    long end = 0;
    for (Op op : h.ops()) {
      end = Math.max(end, time(op));
    }
    return end;
  }

  private static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
