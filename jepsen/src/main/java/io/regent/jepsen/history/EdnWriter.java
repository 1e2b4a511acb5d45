package io.regent.jepsen.history;

import java.io.IOException;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes histories in Knossos's EDN format, one op per line inside a top-level vector:
 *
 * <pre>
 * [{:process 0, :type :invoke, :f :cas, :value [1 2]}
 *  {:process 0, :type :ok, :f :cas, :value [1 2]}]
 * </pre>
 *
 * Keys come in the order {@code :process :type :f :value}, then {@code :time} and {@code :key} when
 * present, then any extras. Lists are written as vectors (EDN and Clojure consider them equal), so
 * {@link EdnReader} reads back an equal history.
 */
public final class EdnWriter {
  private EdnWriter() {
  }

  /** Writes the history to a file (UTF-8), replacing it. */
  public static void write(History history, Path file) throws IOException {
    try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      write(history.ops(), w);
    }
  }

  /** Writes the ops as a vector, one op per line, with a trailing newline. */
  public static void write(List<Op> ops, Writer w) throws IOException {
    if (ops.isEmpty()) {
      w.write("[]\n");
      return;
    }
    for (int i = 0; i < ops.size(); i++) {
      w.write(i == 0 ? "[" : " ");
      w.write(writeOp(ops.get(i)));
      w.write(i == ops.size() - 1 ? "]\n" : "\n");
    }
  }

  /** The ops as one EDN string, one op per line. */
  public static String toString(List<Op> ops) {
    java.io.StringWriter w = new java.io.StringWriter();
    try {
      write(ops, w);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return w.toString();
  }

  /** One op as an EDN map on a single line. */
  public static String writeOp(Op op) {
    StringBuilder b = new StringBuilder(64);
    b.append("{:process ");
    b.append(op.isNemesis() ? ":nemesis" : Long.toString(op.process()));
    b.append(", :type ").append(op.type().keyword());
    b.append(", :f ").append(op.f());
    b.append(", :value ");
    append(b, op.value());
    if (op.time() != null) {
      b.append(", :time ").append(op.time());
    }
    if (op.key() != null) {
      b.append(", :key ");
      append(b, op.key());
    }
    for (Map.Entry<Keyword, Object> e : op.extra().entrySet()) {
      b.append(", ").append(e.getKey()).append(' ');
      append(b, e.getValue());
    }
    return b.append('}').toString();
  }

  /** One EDN value. */
  public static String writeValue(Object v) {
    StringBuilder b = new StringBuilder();
    append(b, v);
    return b.toString();
  }

  private static void append(StringBuilder b, Object v) {
    if (v == null) {
      b.append("nil");
    } else if (v instanceof Long || v instanceof Integer || v instanceof Boolean
        || v instanceof Keyword || v instanceof Symbol) {
      b.append(v);
    } else if (v instanceof BigInteger big) {
      b.append(big).append('N');
    } else if (v instanceof Double d) {
      if (d.isNaN() || d.isInfinite()) {
        throw new IllegalArgumentException("EDN has no literal for " + d);
      }
      b.append(d);
    } else if (v instanceof String str) {
      appendString(b, str);
    } else if (v instanceof Character c) {
      switch (c) {
        case '\n' -> b.append("\\newline");
        case ' ' -> b.append("\\space");
        case '\t' -> b.append("\\tab");
        case '\r' -> b.append("\\return");
        default -> b.append('\\').append(c);
      }
    } else if (v instanceof List<?> l) {
      appendAll(b, "[", l, "]");
    } else if (v instanceof Set<?> s) {
      appendAll(b, "#{", s, "}");
    } else if (v instanceof Map<?, ?> m) {
      b.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (!first) {
          b.append(", ");
        }
        first = false;
        append(b, e.getKey());
        b.append(' ');
        append(b, e.getValue());
      }
      b.append('}');
    } else {
      throw new IllegalArgumentException("not an EDN value: " + v.getClass().getName());
    }
  }

  private static void appendAll(StringBuilder b, String open, Collection<?> items, String close) {
    b.append(open);
    boolean first = true;
    for (Object o : items) {
      if (!first) {
        b.append(' ');
      }
      first = false;
      append(b, o);
    }
    b.append(close);
  }

  private static void appendString(StringBuilder b, String str) {
    b.append('"');
    for (int i = 0; i < str.length(); i++) {
      char c = str.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\t' -> b.append("\\t");
        case '\r' -> b.append("\\r");
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
