package io.regent.jepsen.runner;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.LongStream;
import java.util.stream.Stream;

/**
 * When a node won an election, read from the node logs: Ratis's {@code LeaderElection} logs "ELECTION PASSED" the
 * moment a candidate has its votes, at INFO, which {@code regent server} logs for that logger ({@code Regent.main}). Asking the nodes instead (their Status) answers late on a loaded machine: the first write
 * through the new leader was seen acknowledged before its Status said it led.
 */
final class ElectionLog {
  /** The nodes' log line prefix: {@code 2026-12-06 17:50:31.048 INFO  [...]} in the machine's time zone. */
  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");
  private static final String PASSED = "ELECTION PASSED";

  private ElectionLog() {
  }

  /** The first election won at or after {@code sinceEpochMs} in any of {@code logs}, epoch ms; empty if none. */
  static OptionalLong firstWonSince(List<Path> logs, long sinceEpochMs) {
    return won(logs, sinceEpochMs, Long.MAX_VALUE).min();
  }

  /**
   * The last election won in [{@code sinceEpochMs}, {@code untilEpochMs}] in any of {@code logs}, epoch ms; empty
   * if none. A leader deposed soon after its election (on a starved machine) is followed by another, and a write
   * acknowledged at {@code untilEpochMs} was served by the last one.
   */
  static OptionalLong lastWonBetween(List<Path> logs, long sinceEpochMs, long untilEpochMs) {
    return won(logs, sinceEpochMs, untilEpochMs).max();
  }

  private static LongStream won(List<Path> logs, long sinceEpochMs, long untilEpochMs) {
    LongStream.Builder all = LongStream.builder();
    for (Path log : logs) {
      try (Stream<String> lines = Files.lines(log)) {
        lines.filter(l -> l.contains(PASSED)).mapToLong(ElectionLog::stamp)
            .filter(t -> t >= sinceEpochMs && t <= untilEpochMs).forEach(all);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return all.build();
  }

  /** The epoch ms of {@code line}'s stamp, or -1 when it has none. */
  static long stamp(String line) {
    if (line.length() < 23) {
      return -1;
    }
    try {
      return LocalDateTime.parse(line.substring(0, 23), STAMP).atZone(ZoneId.systemDefault()).toInstant()
          .toEpochMilli();
    } catch (DateTimeParseException e) {
      return -1;
    }
  }
}
