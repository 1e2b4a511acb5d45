package io.regent.cli.output;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonObject;
import com.google.gson.JsonSerializer;

/** One JSON object of {@code -w json} output, written by Gson on one line, fields in the order put. */
public final class Json {
  private static final Gson GSON = new GsonBuilder().serializeNulls().disableHtmlEscaping()
      .registerTypeHierarchyAdapter(Json.class, (JsonSerializer<Json>) (src, type, ctx) -> src.object)
      .create();

  private final JsonObject object = new JsonObject();

  /** A new, empty object. */
  public static Json obj() {
    return new Json();
  }

  /** Adds a field: a String, Number, Boolean, null, {@link Json}, Map or Collection of those. */
  public Json put(String key, Object value) {
    object.add(key, GSON.toJsonTree(value));
    return this;
  }

  @Override
  public String toString() {
    return GSON.toJson(object);
  }
}
