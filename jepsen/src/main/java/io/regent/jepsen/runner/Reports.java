package io.regent.jepsen.runner;

import io.regent.jepsen.history.History;
import io.regent.jepsen.report.Plots;
import io.regent.jepsen.report.TimelineHtml;
import java.nio.file.Path;

/** Writes {@code timeline.html}, {@code latency.png} and {@code rate.png}; a failure is a note, not a crash. */
final class Reports {
  private Reports() {
  }

  static void write(History h, String title, Path dir) {
    try {
      TimelineHtml.write(h, title, dir.resolve("timeline.html"));
    } catch (Exception e) {
      TestRun.log("could not write timeline.html: " + e);
    }
    try {
      Plots.write(h, title, dir);
    } catch (Exception | LinkageError e) {
      TestRun.log("could not write the plots: " + e);
    }
  }
}
