package io.regent.cli.command.group;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Gives an --exec child SIGHUP at its default disposition even when regent itself runs with SIGHUP ignored
 * (under {@code nohup}, or started by a supervisor that ignores it). An ignored signal stays ignored across
 * exec, and a POSIX shell may not trap a signal that was ignored when it started (POSIX, Shell Command
 * Language, "trap"): a shell script's {@code trap ... HUP} would then do nothing and the child would never
 * hear of a change. The JVM cannot set a child's dispositions, so the command runs through GNU
 * {@code env --default-signal=HUP} (coreutils 8.31+) when that is needed and available.
 */
final class HangupReset {
  private static final Path STATUS = Path.of("/proc/self/status");

  private HangupReset() {
  }

  /** {@code command}, prefixed with {@code env --default-signal=HUP} when this process ignores SIGHUP. */
  static List<String> wrap(List<String> command, PrintWriter err) {
    if (!hangupIgnored()) {
      return command;
    }
    if (!envResets()) {
      err.println("warning: SIGHUP is ignored in this process (nohup?) and this env has no --default-signal: "
          + "a shell CMD cannot trap it; poll $" + GroupJoinCommand.PARTITIONS_FILE + " instead");
      err.flush();
      return command;
    }
    List<String> wrapped = new ArrayList<>(List.of("env", "--default-signal=HUP"));
    wrapped.addAll(command);
    return wrapped;
  }

  /** Whether SIGHUP (signal 1, bit 0 of the SigIgn mask) is ignored here; false off Linux. */
  static boolean hangupIgnored() {
    try {
      for (String line : Files.readAllLines(STATUS)) {
        if (line.startsWith("SigIgn:")) {
          return (Long.parseUnsignedLong(line.substring("SigIgn:".length()).trim(), 16) & 1L) != 0;
        }
      }
    } catch (IOException | NumberFormatException e) {
      // not Linux, or an unexpected format: assume the default disposition
    }
    return false;
  }

  private static boolean envResets() {
    try {
      Process p = new ProcessBuilder("env", "--default-signal=HUP", "true")
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      return p.waitFor(5, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
