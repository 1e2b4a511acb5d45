package io.regent.jepsen.report;

import io.regent.jepsen.history.EdnWriter;
import io.regent.jepsen.history.Keyword;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** Writes a results map as {@code results.edn} (one top-level key per line) and {@code results.json}. */
public final class ResultsFiles {
  private ResultsFiles() {
  }

  /** Writes both files into {@code dir}. */
  public static void write(Path dir, Map<Keyword, Object> results) throws IOException {
    Files.writeString(dir.resolve("results.edn"), edn(results), StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("results.json"), Json.write(results), StandardCharsets.UTF_8);
  }

  /** The map as EDN, one top-level entry per line and, one level down, one entry per line as well. */
  public static String edn(Map<Keyword, Object> results) {
    StringBuilder b = new StringBuilder("{");
    boolean first = true;
    for (Map.Entry<Keyword, Object> e : results.entrySet()) {
      b.append(first ? "" : "\n ").append(e.getKey()).append(' ');
      first = false;
      if (e.getValue() instanceof Map<?, ?> m && !m.isEmpty()) {
        b.append('{');
        boolean inner = true;
        for (Map.Entry<?, ?> f : m.entrySet()) {
          b.append(inner ? "" : "\n  ").append(EdnWriter.writeValue(f.getKey())).append(' ')
              .append(EdnWriter.writeValue(f.getValue()));
          inner = false;
        }
        b.append('}');
      } else {
        b.append(EdnWriter.writeValue(e.getValue()));
      }
    }
    return b.append("}\n").toString();
  }
}
