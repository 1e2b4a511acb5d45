package io.regent.jepsen.history;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A small parser for EDN values (the spec at github.com/edn-format/edn): {@code nil}, booleans,
 * integers (with optional {@code N}), floats, strings, characters, keywords, symbols, vectors, lists,
 * maps, sets, commas as whitespace, {@code ;} comments, {@code #_} discards, and tagged values
 * ({@code #inst "…"}, {@code #jepsen.history.Op{…}}) whose tag is dropped. Values map to Java as
 * described in {@link Op}. Written for Regent; no EDN library is used.
 */
public final class EdnParser {
  private final String s;
  private int pos;

  private EdnParser(String text) {
    this.s = text;
  }

  /** Parses every top-level form of the text. */
  public static List<Object> readAll(String text) {
    EdnParser r = new EdnParser(text);
    List<Object> out = new ArrayList<>();
    while (r.skipSpace()) {
      Object form = r.readForm();
      if (form != DISCARDED) {
        out.add(form);
      }
    }
    return out;
  }

  /** Parses exactly one EDN value. */
  public static Object read(String text) {
    List<Object> all = readAll(text);
    if (all.size() != 1) {
      throw new IllegalArgumentException("expected one EDN form, found " + all.size());
    }
    return all.get(0);
  }

  private static final Object DISCARDED = new Object();

  /** Skips whitespace, commas and comments; false at end of input. */
  private boolean skipSpace() {
    while (pos < s.length()) {
      char c = s.charAt(pos);
      if (c == ';') {
        while (pos < s.length() && s.charAt(pos) != '\n') {
          pos++;
        }
      } else if (Character.isWhitespace(c) || c == ',') {
        pos++;
      } else {
        return true;
      }
    }
    return false;
  }

  private Object readForm() {
    char c = s.charAt(pos);
    switch (c) {
      case '[': pos++; return Collections.unmodifiableList(readSeq(']'));
      case '(': pos++; return Collections.unmodifiableList(readSeq(')'));
      case '{': pos++; return readMap();
      case '"': pos++; return readString();
      case '\\': return readChar();
      case ':': pos++; return Keyword.of(token());
      case '#': return readDispatch();
      case ']': case ')': case '}': throw error("unexpected '" + c + "'");
      default: return readAtom(token());
    }
  }

  private List<Object> readSeq(char close) {
    List<Object> out = new ArrayList<>();
    while (true) {
      if (!skipSpace()) {
        throw error("unterminated collection, expected '" + close + "'");
      }
      if (s.charAt(pos) == close) {
        pos++;
        return out;
      }
      Object form = readForm();
      if (form != DISCARDED) {
        out.add(form);
      }
    }
  }

  private Map<Object, Object> readMap() {
    List<Object> items = readSeq('}');
    if (items.size() % 2 != 0) {
      throw error("map literal with an odd number of forms");
    }
    Map<Object, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < items.size(); i += 2) {
      m.put(items.get(i), items.get(i + 1));
    }
    return Collections.unmodifiableMap(m);
  }

  private Object readDispatch() {
    if (pos + 1 >= s.length()) {
      throw error("lone '#'");
    }
    char n = s.charAt(pos + 1);
    if (n == '{') {
      pos += 2;
      Set<Object> set = new LinkedHashSet<>(readSeq('}'));
      return Collections.unmodifiableSet(set);
    }
    if (n == '_') {
      pos += 2;
      skipSpace();
      readForm();
      return DISCARDED;
    }
    pos++;
    token(); // the tag; its value is kept untagged
    if (!skipSpace()) {
      throw error("tag without a value");
    }
    return readForm();
  }

  private String readString() {
    StringBuilder b = new StringBuilder();
    while (pos < s.length()) {
      char c = s.charAt(pos++);
      if (c == '"') {
        return b.toString();
      }
      if (c != '\\') {
        b.append(c);
        continue;
      }
      if (pos >= s.length()) {
        break;
      }
      char e = s.charAt(pos++);
      switch (e) {
        case 'n' -> b.append('\n');
        case 't' -> b.append('\t');
        case 'r' -> b.append('\r');
        case 'b' -> b.append('\b');
        case 'f' -> b.append('\f');
        case '"', '\\' -> b.append(e);
        case 'u' -> {
          if (pos + 4 > s.length()) {
            throw error("short \\u escape");
          }
          b.append((char) Integer.parseInt(s.substring(pos, pos + 4), 16));
          pos += 4;
        }
        default -> throw error("bad string escape \\" + e);
      }
    }
    throw error("unterminated string");
  }

  private Character readChar() {
    pos++;
    if (pos >= s.length()) {
      throw error("lone backslash");
    }
    int start = pos++;
    while (pos < s.length() && !isDelimiter(s.charAt(pos))) {
      pos++;
    }
    String name = s.substring(start, pos);
    return switch (name) {
      case "newline" -> '\n';
      case "space" -> ' ';
      case "tab" -> '\t';
      case "return" -> '\r';
      default -> {
        if (name.length() == 1) {
          yield name.charAt(0);
        }
        if (name.length() == 5 && name.charAt(0) == 'u') {
          yield (char) Integer.parseInt(name.substring(1), 16);
        }
        throw error("unknown character literal \\" + name);
      }
    };
  }

  private String token() {
    int start = pos;
    while (pos < s.length() && !isDelimiter(s.charAt(pos))) {
      pos++;
    }
    if (start == pos) {
      throw error("empty token");
    }
    return s.substring(start, pos);
  }

  private static boolean isDelimiter(char c) {
    return Character.isWhitespace(c) || c == ',' || c == '(' || c == ')' || c == '[' || c == ']'
        || c == '{' || c == '}' || c == '"' || c == ';';
  }

  private Object readAtom(String t) {
    switch (t) {
      case "nil": return null;
      case "true": return Boolean.TRUE;
      case "false": return Boolean.FALSE;
      default: break;
    }
    char c0 = t.charAt(0);
    boolean numeric = Character.isDigit(c0)
        || ((c0 == '-' || c0 == '+') && t.length() > 1 && Character.isDigit(t.charAt(1)));
    if (!numeric) {
      return new Symbol(t);
    }
    try {
      String body = t.endsWith("N") || t.endsWith("M") ? t.substring(0, t.length() - 1) : t;
      if (body.startsWith("+")) {
        body = body.substring(1);
      }
      if (t.endsWith("M") || body.contains(".") || body.contains("e") || body.contains("E")) {
        return Double.parseDouble(body);
      }
      BigInteger big = new BigInteger(body);
      return big.bitLength() < 64 ? (Object) big.longValue() : big;
    } catch (NumberFormatException e) {
      throw error("bad number '" + t + "'");
    }
  }

  private IllegalArgumentException error(String msg) {
    int line = 1;
    int col = 1;
    for (int i = 0; i < Math.min(pos, s.length()); i++) {
      if (s.charAt(i) == '\n') {
        line++;
        col = 1;
      } else {
        col++;
      }
    }
    return new IllegalArgumentException("EDN: " + msg + " at line " + line + ", column " + col);
  }
}
