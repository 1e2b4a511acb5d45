package io.regent.server.config;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as written in Regent's settings and on its command line, as Go (and so etcdctl, consul, kubectl)
 * writes them: a sequence of decimal numbers each with a unit — {@code ns}, {@code us} (or {@code µs}),
 * {@code ms}, {@code s}, {@code m}, {@code h} — such as {@code 250ms}, {@code 1.5s}, {@code 1m30s}; a bare
 * number means seconds (docs/architecture.md §7). Not negative, at most 10^6 hours.
 */
public final class Durations {
  private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d*)?|\\.\\d+)(ns|us|µs|ms|s|m|h)");
  private static final Pattern WHOLE = Pattern.compile("(?:" + PART.pattern() + ")+");
  private static final Pattern BARE = Pattern.compile("\\d{1,12}(?:\\.\\d{0,9})?");
  private static final BigDecimal MAX_NANOS =
      BigDecimal.valueOf(3_600_000_000_000L).multiply(BigDecimal.valueOf(1_000_000));

  private Durations() {
  }

  /**
   * Parses {@code value}.
   *
   * @throws IllegalArgumentException with a one-line message when {@code value} is null or malformed
   */
  public static Duration parse(String value) {
    String v = value == null ? "" : value.trim();
    if (BARE.matcher(v).matches()) {
      return nanos(new BigDecimal(v).multiply(BigDecimal.valueOf(1_000_000_000L)), value);
    }
    if (!WHOLE.matcher(v).matches()) {
      throw malformed(value);
    }
    BigDecimal total = BigDecimal.ZERO;
    Matcher m = PART.matcher(v);
    while (m.find()) {
      BigDecimal n = new BigDecimal(m.group(1).endsWith(".") ? m.group(1) + "0" : m.group(1));
      long unitNanos = switch (m.group(2)) {
        case "ns" -> 1L;
        case "us", "µs" -> 1_000L;
        case "ms" -> 1_000_000L;
        case "s" -> 1_000_000_000L;
        case "m" -> 60_000_000_000L;
        default -> 3_600_000_000_000L;
      };
      total = total.add(n.multiply(BigDecimal.valueOf(unitNanos)));
    }
    return nanos(total, value);
  }

  private static Duration nanos(BigDecimal nanos, String value) {
    if (nanos.compareTo(MAX_NANOS) > 0) {
      throw malformed(value);
    }
    return Duration.ofNanos(nanos.setScale(0, RoundingMode.HALF_UP).longValueExact());
  }

  private static IllegalArgumentException malformed(String value) {
    return new IllegalArgumentException("'" + value + "' is not a duration (write it as Go does: 250ms, 1.5s, "
        + "1m30s, 2h; a bare number means seconds)");
  }
}
