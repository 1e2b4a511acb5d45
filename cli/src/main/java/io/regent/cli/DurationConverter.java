package io.regent.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Durations as written on the command line: {@code 500ms}, {@code 3s}, {@code 1m}, {@code 1h}; a bare number is seconds. */
public final class DurationConverter implements ITypeConverter<Duration> {
  private static final Pattern FORMAT = Pattern.compile("(\\d{1,12})(ms|s|m|h)?");

  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  /** Parses a duration; throws {@link TypeConversionException} (a usage error) when malformed. */
  public static Duration parse(String value) {
    Matcher m = FORMAT.matcher(value == null ? "" : value.trim());
    if (!m.matches()) {
      throw new TypeConversionException("'" + value + "' is not a duration (write 500ms, 3s, 1m or 1h; a bare "
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
