package io.regent.server.console;

import java.util.Collection;
import java.util.Map;

/**
 * A JSON text under construction: objects and arrays of strings, numbers, booleans, nulls and nested values.
 * Strings are escaped per RFC 8259, and {@code <}, {@code >} and {@code &} as {@code \\uXXXX} too, so that no
 * user-given name can end a script or markup context even if a page embedded the text. Not thread-safe.
 */
final class ConsoleJson {
  private final StringBuilder out = new StringBuilder();

  private ConsoleJson() {
  }

  /**
   * A value as JSON text: null, Boolean, Number, CharSequence, Map (keys by their string form, in its iteration
   * order) or Collection, nested freely.
   *
   * @throws IllegalArgumentException for a value of any other type
   */
  static String of(Object value) {
    ConsoleJson j = new ConsoleJson();
    j.value(value);
    return j.out.toString();
  }

  private void value(Object v) {
    if (v == null) {
      out.append("null");
    } else if (v instanceof Boolean || v instanceof Integer || v instanceof Long) {
      out.append(v);
    } else if (v instanceof Number n) {
      double d = n.doubleValue();
      out.append(Double.isFinite(d) ? String.valueOf(d) : "null");
    } else if (v instanceof CharSequence s) {
      string(s);
    } else if (v instanceof Map<?, ?> m) {
      out.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        out.append(first ? "" : ",");
        first = false;
        string(String.valueOf(e.getKey()));
        out.append(':');
        value(e.getValue());
      }
      out.append('}');
    } else if (v instanceof Collection<?> c) {
      out.append('[');
      boolean first = true;
      for (Object o : c) {
        out.append(first ? "" : ",");
        first = false;
        value(o);
      }
      out.append(']');
    } else {
      throw new IllegalArgumentException("no JSON form for " + v.getClass().getName());
    }
  }

  private void string(CharSequence s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x2028 || c == 0x2029) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
