package io.regent.jepsen.report;

import io.regent.jepsen.history.Keyword;
import java.util.Collection;
import java.util.Map;

/**
 * Writes the EDN-shaped values of a results map as JSON: keywords become strings without the colon
 * (as map keys too: {@code :valid?} becomes {@code "valid?"}), vectors and sets become arrays.
 */
public final class Json {
  private Json() {
  }

  /** The value as pretty-printed JSON. */
  public static String write(Object v) {
    StringBuilder b = new StringBuilder();
    append(b, v, 0);
    return b.append('\n').toString();
  }

  private static void append(StringBuilder b, Object v, int depth) {
    if (v == null) {
      b.append("null");
    } else if (v instanceof Boolean || v instanceof Long || v instanceof Integer || v instanceof Double) {
      b.append(v);
    } else if (v instanceof Keyword k) {
      string(b, k.name());
    } else if (v instanceof Map<?, ?> m) {
      b.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        b.append(first ? "\n" : ",\n").append("  ".repeat(depth + 1));
        first = false;
        string(b, e.getKey() instanceof Keyword k ? k.name() : String.valueOf(e.getKey()));
        b.append(": ");
        append(b, e.getValue(), depth + 1);
      }
      b.append(first ? "}" : "\n" + "  ".repeat(depth) + "}");
    } else if (v instanceof Collection<?> c) {
      b.append('[');
      boolean first = true;
      for (Object o : c) {
        b.append(first ? "" : ", ");
        first = false;
        append(b, o, depth + 1);
      }
      b.append(']');
    } else {
      string(b, v.toString());
    }
  }

  /** Appends a JSON string literal. */
  static void string(StringBuilder b, String s) {
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    b.append('"');
  }
}
