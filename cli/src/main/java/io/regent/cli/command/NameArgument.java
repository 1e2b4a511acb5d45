package io.regent.cli.command;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A NAME argument as the shell passed it: refused (exit 2, one line) when it held bytes that were not UTF-8, which the
 * JVM turns into U+FFFD before Regent sees them — two different byte strings would otherwise become one lock
 * (docs/api.md "Names"). The server judges every other rule.
 */
public final class NameArgument implements ITypeConverter<String> {
  @Override
  public String convert(String value) {
    int at = value.indexOf('\uFFFD');
    if (at >= 0) {
      throw new TypeConversionException("the name is not valid UTF-8 (bytes at character " + at
          + " could not be decoded); names are UTF-8 text");
    }
    return value;
  }
}
