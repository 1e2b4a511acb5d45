package io.regent.bench.load;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.ToNumberPolicy;
import com.google.gson.reflect.TypeToken;
import java.io.IOException;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Files of one JSON object per line (what {@code regent bench -w json} prints), written and read with Gson.
 * Numbers read back as {@code Double}; lines that are not objects are skipped.
 */
public final class JsonLines {
  private static final Gson GSON = new GsonBuilder().serializeNulls().disableHtmlEscaping()
      .setObjectToNumberStrategy(ToNumberPolicy.DOUBLE).create();
  private static final Type MAP = new TypeToken<Map<String, Object>>() { }.getType();

  private JsonLines() {
  }

  /** Every line of {@code file} that is a JSON object, parsed. */
  public static List<Map<String, Object>> read(Path file) throws IOException {
    List<Map<String, Object>> out = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      String t = line.trim();
      if (t.startsWith("{")) {
        out.add(parse(t));
      }
    }
    return out;
  }

  /** One JSON object. */
  public static Map<String, Object> parse(String line) {
    return GSON.fromJson(line, MAP);
  }

  /** {@code fields} as one line of JSON, in their iteration order. */
  public static String line(Map<String, ?> fields) {
    return GSON.toJson(fields);
  }
}
