package io.regent.jepsen.compare;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

/** Progress lines, UTC-stamped with the load average, on stderr and in {@code OUT/compare.log}. */
final class Log {
  private final Path file;

  Log(Path file) {
    this.file = file;
  }

  void say(String line) {
    String s = "[compare " + LocalTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS) + " load " + Load.now()
        + "] " + line;
    System.err.println(s);
    try {
      Files.writeString(file, s + System.lineSeparator(), StandardCharsets.UTF_8, StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      // stderr has it
    }
  }
}
