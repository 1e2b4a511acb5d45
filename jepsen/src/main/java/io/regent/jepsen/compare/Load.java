package io.regent.jepsen.compare;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The machine's load average, recorded with every measurement (the machine is shared). */
final class Load {
  private Load() {
  }

  /** The 1-, 5- and 15-minute load averages from {@code /proc/loadavg}, e.g. {@code "3.12 2.80 2.41"}. */
  static String now() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }
}
