package io.regent.jepsen.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;

/** The data directories a run's nodes write: removed after the run, and before a cluster that must start fresh. */
public final class DataDirs {
  private DataDirs() {
  }

  /**
   * Deletes {@code dir} and everything under it; nothing when it does not exist. Best effort, file by file: a file
   * that cannot be deleted is left, and so are the directories above it.
   */
  public static void delete(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }
}
