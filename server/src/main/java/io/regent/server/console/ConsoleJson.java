package io.regent.server.console;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.util.Collection;
import java.util.Map;

/**
 * The console's documents as JSON text, written by Gson. Gson escapes strings per RFC 8259 and, being
 * HTML-safe by default, {@code <}, {@code >}, {@code &}, {@code =} and {@code '} as {@code \\uXXXX} too, so that no
 * user-given name can end a script or markup context even if a page embedded the text.
 */
final class ConsoleJson {
  /** Nulls are written: a member whose value is null (a name without holder) is part of the document. */
  private static final Gson GSON = new GsonBuilder().serializeNulls().create();

  private ConsoleJson() {
  }

  /**
   * A value as JSON text: null, Boolean, Number (a non-finite one as null), CharSequence, Map (keys by their
   * string form, in its iteration order) or Collection, nested freely.
   *
   * @throws IllegalArgumentException for a value of any other type
   */
  static String of(Object value) {
    return GSON.toJson(tree(value));
  }

  /** {@code v} as Gson's tree; the types allowed are checked here, where Gson would write any object's fields. */
  private static JsonElement tree(Object v) {
    if (v == null) {
      return JsonNull.INSTANCE;
    } else if (v instanceof Boolean b) {
      return new JsonPrimitive(b);
    } else if (v instanceof Integer || v instanceof Long) {
      return new JsonPrimitive((Number) v);
    } else if (v instanceof Number n) {
      double d = n.doubleValue();
      return Double.isFinite(d) ? new JsonPrimitive(d) : JsonNull.INSTANCE;
    } else if (v instanceof CharSequence s) {
      return new JsonPrimitive(s.toString());
    } else if (v instanceof Map<?, ?> m) {
      JsonObject o = new JsonObject();
      m.forEach((k, x) -> o.add(String.valueOf(k), tree(x)));
      return o;
    } else if (v instanceof Collection<?> c) {
      JsonArray a = new JsonArray();
      c.forEach(x -> a.add(tree(x)));
      return a;
    }
    throw new IllegalArgumentException("no JSON form for " + v.getClass().getName());
  }
}
