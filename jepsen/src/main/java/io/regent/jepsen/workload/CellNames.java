package io.regent.jepsen.workload;

import io.regent.server.placement.Placement;
import java.util.ArrayList;
import java.util.List;

/**
 * The names a workload uses on a cluster of several cells (docs/architecture.md §14): spread so that every cell
 * holds at least one, each in a tenant of its own ({@code tK/e0}), so that a run exercises every cell's log, leader
 * and tokens. On one cell the names stay as they always were ({@code e0}, {@code e1}, …), so histories of runs
 * without cells keep their keys.
 */
public final class CellNames {
  private CellNames() {
  }

  /**
   * {@code count} names with {@code prefix} on one cell; on {@code cells > 1}, max(count, cells) names, the i-th in
   * cell {@code i mod cells}.
   *
   * @param prefix the names' prefix ({@code e} gives {@code e0}, {@code e1}, …)
   * @param count how many names on one cell, at least 1
   * @param placement the cluster's placement
   */
  public static List<String> spread(String prefix, int count, Placement placement) {
    if (placement.cells() == 1) {
      List<String> names = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        names.add(prefix + i);
      }
      return names;
    }
    List<String> names = new ArrayList<>();
    int tenant = 0;
    for (int i = 0; i < Math.max(count, placement.cells()); i++) {
      while (placement.cellOfTenant("t" + tenant) != i % placement.cells()) {
        tenant++;
      }
      names.add("t" + tenant + "/" + prefix + i);
      tenant++;
    }
    return names;
  }

  /** The name {@code name} on one cell; on several, {@code name} in the first tenant that places it in cell 1. */
  public static String outsideCellZero(String name, Placement placement) {
    if (placement.cells() == 1) {
      return name;
    }
    int tenant = 0;
    while (placement.cellOfTenant("t" + tenant) != 1) {
      tenant++;
    }
    return "t" + tenant + "/" + name;
  }
}
