package io.regent.bench.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads files of one JSON object per line (what {@code regent bench -w json} prints); other lines are skipped. */
final class JsonLines {
  private final String s;
  private int i;

  private JsonLines(String s) {
    this.s = s;
  }

  /** Every line of {@code file} that is a JSON object, parsed. */
  static List<Map<String, Object>> read(Path file) throws IOException {
    List<Map<String, Object>> out = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      String t = line.trim();
      if (t.startsWith("{")) {
        out.add(parse(t));
      }
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> parse(String line) {
    return (Map<String, Object>) new JsonLines(line).value();
  }

  private Object value() {
    skip();
    char c = s.charAt(i);
    if (c == '{') {
      Map<String, Object> m = new LinkedHashMap<>();
      i++;
      skip();
      if (s.charAt(i) == '}') {
        i++;
        return m;
      }
      while (true) {
        skip();
        String k = string();
        skip();
        expect(':');
        m.put(k, value());
        skip();
        if (s.charAt(i++) == '}') {
          return m;
        }
      }
    }
    if (c == '[') {
      List<Object> l = new ArrayList<>();
      i++;
      skip();
      if (s.charAt(i) == ']') {
        i++;
        return l;
      }
      while (true) {
        l.add(value());
        skip();
        if (s.charAt(i++) == ']') {
          return l;
        }
      }
    }
    if (c == '"') {
      return string();
    }
    int start = i;
    while (i < s.length() && ",}] ".indexOf(s.charAt(i)) < 0) {
      i++;
    }
    String word = s.substring(start, i);
    return switch (word) {
      case "true" -> Boolean.TRUE;
      case "false" -> Boolean.FALSE;
      case "null" -> null;
      default -> Double.parseDouble(word);
    };
  }

  private String string() {
    expect('"');
    StringBuilder b = new StringBuilder();
    while (true) {
      char c = s.charAt(i++);
      if (c == '"') {
        return b.toString();
      }
      if (c == '\\') {
        char e = s.charAt(i++);
        switch (e) {
          case 'n' -> b.append('\n');
          case 't' -> b.append('\t');
          case 'r' -> b.append('\r');
          case 'b' -> b.append('\b');
          case 'f' -> b.append('\f');
          case 'u' -> {
            b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
            i += 4;
          }
          default -> b.append(e);
        }
      } else {
        b.append(c);
      }
    }
  }

  private void expect(char c) {
    if (s.charAt(i++) != c) {
      throw new IllegalArgumentException("expected '" + c + "' at " + (i - 1) + " in " + s);
    }
  }

  private void skip() {
    while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
      i++;
    }
  }
}
