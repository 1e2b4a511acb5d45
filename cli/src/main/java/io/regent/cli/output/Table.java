package io.regent.cli.output;

import java.util.ArrayList;
import java.util.List;

/** A text table for {@code -w table}: a header row and data rows, columns padded to their widest cell. */
public final class Table {
  private final List<List<String>> rows = new ArrayList<>();

  /** A table with these column titles. */
  public Table(String... header) {
    rows.add(List.of(header));
  }

  /** Adds a row (as many cells as the header). */
  public Table row(Object... cells) {
    List<String> r = new ArrayList<>();
    for (Object c : cells) {
      r.add(String.valueOf(c));
    }
    rows.add(r);
    return this;
  }

  @Override
  public String toString() {
    int[] width = new int[rows.get(0).size()];
    for (List<String> r : rows) {
      for (int i = 0; i < r.size(); i++) {
        width[i] = Math.max(width[i], r.get(i).length());
      }
    }
    StringBuilder b = new StringBuilder();
    for (List<String> r : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < r.size(); i++) {
        line.append(i == 0 ? "" : "  ").append(String.format("%-" + width[i] + "s", r.get(i)));
      }
      b.append(b.length() == 0 ? "" : System.lineSeparator()).append(line.toString().stripTrailing());
    }
    return b.toString();
  }
}
