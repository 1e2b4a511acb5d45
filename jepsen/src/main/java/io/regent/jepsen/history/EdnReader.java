package io.regent.jepsen.history;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads Knossos/Jepsen EDN histories: either one top-level vector or list of op maps, or a sequence
 * of op maps, e.g. {@code {:process 0, :type :invoke, :f :cas, :value [1 2]}} (the format of Knossos's
 * {@code data/} histories and of Jepsen's {@code history.edn}). Values are parsed by {@link EdnParser};
 * the map keys {@code :process :type :f :value :time :key} fill {@link Op}'s fields and any others
 * are kept in {@link Op#extra()}.
 */
public final class EdnReader {
  private EdnReader() {
  }

  /** Reads the ops of a history text (a top-level vector/list of maps, or a sequence of maps). */
  public static List<Op> readOps(String text) {
    List<Op> ops = new ArrayList<>();
    for (Object form : EdnParser.readAll(text)) {
      if (form instanceof Map<?, ?> m) {
        ops.add(toOp(m));
      } else if (form instanceof List<?> l) {
        for (Object o : l) {
          if (!(o instanceof Map<?, ?> m)) {
            throw new IllegalArgumentException("history element is not a map: " + o);
          }
          ops.add(toOp(m));
        }
      } else {
        throw new IllegalArgumentException("top-level form is neither an op map nor a vector: " + form);
      }
    }
    return ops;
  }

  /** Reads and pairs a history. */
  public static History readHistory(String text) {
    return new History(readOps(text));
  }

  /** Reads and pairs a history file (UTF-8). */
  public static History readHistory(Path file) throws IOException {
    return readHistory(Files.readString(file, StandardCharsets.UTF_8));
  }

  /** Converts one op map; {@code :process :nemesis} maps to {@link Op#NEMESIS}. */
  public static Op toOp(Map<?, ?> m) {
    Map<Keyword, Object> extra = new LinkedHashMap<>();
    Long process = null;
    Op.Type type = null;
    Keyword f = null;
    Object value = null;
    Long time = null;
    Object key = null;
    for (Map.Entry<?, ?> e : m.entrySet()) {
      if (!(e.getKey() instanceof Keyword k)) {
        throw new IllegalArgumentException("op map key is not a keyword: " + e.getKey());
      }
      Object v = e.getValue();
      switch (k.name()) {
        case "process" -> {
          if (v instanceof Long l) {
            process = l;
          } else if (v instanceof Keyword kw && kw.name().equals("nemesis")) {
            process = Op.NEMESIS;
          } else {
            throw new IllegalArgumentException("bad :process " + v + " in " + m);
          }
        }
        case "type" -> type = Op.Type.of(asKeyword(v, m));
        case "f" -> f = asKeyword(v, m);
        case "value" -> value = v;
        case "time" -> {
          if (!(v instanceof Long l)) {
            throw new IllegalArgumentException("bad :time " + v + " in " + m);
          }
          time = l;
        }
        case "key" -> key = v;
        default -> extra.put(k, v);
      }
    }
    if (process == null || type == null || f == null) {
      throw new IllegalArgumentException("op map lacks :process, :type or :f: " + m);
    }
    return new Op(process, type, f, value, time, key, extra);
  }

  private static Keyword asKeyword(Object v, Map<?, ?> m) {
    if (v instanceof Keyword k) {
      return k;
    }
    if (v instanceof String str) {
      return Keyword.of(str);
    }
    throw new IllegalArgumentException("expected a keyword, got " + v + " in " + m);
  }
}
