package io.regent.jepsen.history;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One event of a Jepsen/Knossos history: {@code {:process 0, :type :invoke, :f :cas, :value [1 2]}}.
 *
 * <p>Values are EDN values mapped to Java as follows: {@code nil} → {@code null}, integers →
 * {@link Long} (or {@link BigInteger} if too large), strings → {@link String}, keywords → {@link
 * Keyword}, booleans → {@link Boolean}, vectors and lists → an unmodifiable {@link List} (Clojure
 * treats {@code [1 2]} and {@code (1 2)} as equal, and so do we), maps → {@link Map}, sets → {@link
 * Set}. Java {@code Integer}, {@code Short} and {@code Byte} values are widened to {@code Long} so
 * that equality matches EDN's.
 *
 * @param process the logical client process, or {@link #NEMESIS} for the {@code :nemesis} process
 * @param type invoke, ok, fail or info
 * @param f the operation's function, e.g. {@code :read}
 * @param value the operation's value (may be {@code null})
 * @param time optional timestamp in nanoseconds ({@code :time}); {@code null} if absent
 * @param key optional key ({@code :key}) used for per-key decomposition; {@code null} if absent
 * @param extra any other map entries (e.g. {@code :error}, {@code :index}), kept for round trips
 */
public record Op(long process, Type type, Keyword f, Object value, Long time, Object key,
    Map<Keyword, Object> extra) {

  /** The process number standing for Jepsen's {@code :nemesis} process. */
  public static final long NEMESIS = Long.MIN_VALUE;

  /** Jepsen's four event types. */
  public enum Type {
    /** The client started the operation. */
    INVOKE,
    /** The operation definitely took effect (its value is what was observed). */
    OK,
    /** The operation definitely did not take effect. */
    FAIL,
    /** Unknown outcome: the operation may or may not have taken effect. */
    INFO;

    /** The EDN keyword for this type, e.g. {@code :invoke}. */
    public Keyword keyword() {
      return new Keyword(name().toLowerCase(java.util.Locale.ROOT));
    }

    /** Parses {@code :invoke}, {@code :ok}, {@code :fail} or {@code :info}. */
    public static Type of(Keyword k) {
      return switch (k.name()) {
        case "invoke" -> INVOKE;
        case "ok" -> OK;
        case "fail" -> FAIL;
        case "info" -> INFO;
        default -> throw new IllegalArgumentException("unknown op type " + k);
      };
    }
  }

  /** Normalizes the value and copies the extra map. */
  public Op {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(f, "f");
    value = normalize(value);
    key = normalize(key);
    extra = extra == null || extra.isEmpty()
        ? Map.of()
        : Collections.unmodifiableMap(new LinkedHashMap<>(extra));
  }

  /** An op without time, key or extras. */
  public static Op of(long process, Type type, String f, Object value) {
    return new Op(process, type, Keyword.of(f), value, null, null, null);
  }

  /** An {@code :invoke} event. */
  public static Op invoke(long process, String f, Object value) {
    return of(process, Type.INVOKE, f, value);
  }

  /** An {@code :ok} completion. */
  public static Op ok(long process, String f, Object value) {
    return of(process, Type.OK, f, value);
  }

  /** A {@code :fail} completion. */
  public static Op fail(long process, String f, Object value) {
    return of(process, Type.FAIL, f, value);
  }

  /** An {@code :info} completion (or a nemesis event when process is {@link #NEMESIS}). */
  public static Op info(long process, String f, Object value) {
    return of(process, Type.INFO, f, value);
  }

  /** A copy with the given {@code :time} in nanoseconds. */
  public Op withTime(Long nanos) {
    return new Op(process, type, f, value, nanos, key, extra);
  }

  /** A copy with the given {@code :key}. */
  public Op withKey(Object k) {
    return new Op(process, type, f, value, time, k, extra);
  }

  /** A copy with the given value. */
  public Op withValue(Object v) {
    return new Op(process, type, f, v, time, key, extra);
  }

  /** True for events of the {@code :nemesis} process. */
  public boolean isNemesis() {
    return process == NEMESIS;
  }

  /** Short EDN-like rendering, e.g. {@code {:process 3, :type :ok, :f :read, :value 2}}. */
  @Override
  public String toString() {
    return EdnWriter.writeOp(this);
  }

  /** Widens integral types to {@code Long} and freezes collections, recursively. */
  static Object normalize(Object v) {
    if (v == null || v instanceof Long || v instanceof String || v instanceof Keyword
        || v instanceof Boolean || v instanceof Double || v instanceof BigInteger
        || v instanceof Symbol) {
      return v;
    }
    if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
      return ((Number) v).longValue();
    }
    if (v instanceof Float fl) {
      return fl.doubleValue();
    }
    if (v instanceof List<?> l) {
      List<Object> out = new ArrayList<>(l.size());
      for (Object o : l) {
        out.add(normalize(o));
      }
      return Collections.unmodifiableList(out);
    }
    if (v instanceof Set<?> s) {
      Set<Object> out = new LinkedHashSet<>();
      for (Object o : s) {
        out.add(normalize(o));
      }
      return Collections.unmodifiableSet(out);
    }
    if (v instanceof Map<?, ?> m) {
      Map<Object, Object> out = new LinkedHashMap<>();
      m.forEach((k, val) -> out.put(normalize(k), normalize(val)));
      return Collections.unmodifiableMap(out);
    }
    if (v instanceof Character) {
      return v;
    }
    throw new IllegalArgumentException("not an EDN value: " + v.getClass().getName());
  }
}
