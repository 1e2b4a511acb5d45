package io.regent.cli;

import io.regent.server.Durations;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Durations as written on the command line: {@code 500ms}, {@code 3s}, {@code 1m}, {@code 1h}; a bare number is seconds. */
public final class DurationConverter implements ITypeConverter<Duration> {
  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  /** Parses a duration ({@link Durations}); throws {@link TypeConversionException} (a usage error) when malformed. */
  public static Duration parse(String value) {
    try {
      return Durations.parse(value);
    } catch (IllegalArgumentException e) {
      throw new TypeConversionException(e.getMessage());
    }
  }
}
