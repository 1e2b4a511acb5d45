package io.regent.bench.report;

import java.io.IOException;
import java.nio.file.Path;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;

/**
 * The one place Regent's reports build and save XChart plots: the performance page ({@link Plots}) and the
 * Jepsen run reports (jepsen's {@code report.Plots}) differ in what they draw, not in how a chart is made.
 */
public final class Charts {
  private Charts() {
  }

  /**
   * An empty XY chart, headless-safe.
   *
   * @param width image width, pixels
   * @param height image height, pixels
   */
  public static XYChart xy(int width, int height, String title, String xTitle, String yTitle) {
    System.setProperty("java.awt.headless", "true");
    return new XYChartBuilder().width(width).height(height).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle)
        .build();
  }

  /** Writes {@code dir/NAME.png}; returns the file name. */
  public static String savePng(XYChart chart, Path dir, String name) throws IOException {
    BitmapEncoder.saveBitmap(chart, dir.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
    return name + ".png";
  }
}
