package io.regent.server;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as written in Regent's settings and on its command line: {@code 500ms}, {@code 3s}, {@code 1m},
 * {@code 1h}; a bare number means seconds (docs/architecture.md §7).
 */
public final class Durations {
  private static final Pattern FORMAT = Pattern.compile("(\\d{1,12})(ms|s|m|h)?");

  private Durations() {
  }

  /**
   * Parses {@code value}.
   *
   * @throws IllegalArgumentException with a one-line message when {@code value} is null or malformed
   */
  public static Duration parse(String value) {
    Matcher m = FORMAT.matcher(value == null ? "" : value.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException("'" + value + "' is not a duration (write 500ms, 3s, 1m or 1h; a bare "
          + "number means seconds)");
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "s" : m.group(2);
    return switch (unit) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      default -> Duration.ofHours(n);
    };
  }
}
