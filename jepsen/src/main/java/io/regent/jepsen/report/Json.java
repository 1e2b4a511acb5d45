package io.regent.jepsen.report;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import io.regent.jepsen.history.Keyword;
import java.util.Collection;
import java.util.Map;

/**
 * Writes the EDN-shaped values of a results map as JSON (with Gson): keywords become strings without the colon
 * (as map keys too: {@code :valid?} becomes {@code "valid?"}), vectors and sets become arrays.
 */
public final class Json {
  private static final Gson GSON = new GsonBuilder().setPrettyPrinting().serializeNulls().disableHtmlEscaping()
      .create();

  private Json() {
  }

  /** The value as pretty-printed JSON, ending with a newline. */
  public static String write(Object v) {
    return GSON.toJson(tree(v)) + "\n";
  }

  /** The JSON tree of an EDN-shaped value: keywords are named, anything else unknown is its string. */
  private static JsonElement tree(Object v) {
    if (v == null) {
      return JsonNull.INSTANCE;
    } else if (v instanceof Boolean b) {
      return new JsonPrimitive(b);
    } else if (v instanceof Number n) {
      return new JsonPrimitive(n);
    } else if (v instanceof Keyword k) {
      return new JsonPrimitive(k.name());
    } else if (v instanceof Map<?, ?> m) {
      JsonObject o = new JsonObject();
      m.forEach((key, value) -> o.add(key instanceof Keyword k ? k.name() : String.valueOf(key), tree(value)));
      return o;
    } else if (v instanceof Collection<?> c) {
      JsonArray a = new JsonArray();
      c.forEach(x -> a.add(tree(x)));
      return a;
    }
    return new JsonPrimitive(v.toString());
  }
}
