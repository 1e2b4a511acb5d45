package io.regent.cli.settings;

import io.regent.server.config.Durations;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Durations on the command line, as Go writes them ({@code 250ms}, {@code 1.5s}, {@code 1m30s}; a bare number
 * is seconds), parsed by {@link Durations}.
 */
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
