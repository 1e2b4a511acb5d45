package io.regent.cli.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

/**
 * Copies a client's source tree out of the repository, so that what a build or pip writes beside its sources
 * (build/, *.egg-info, dist/, node_modules/) lands in the copy and the repository stays clean.
 */
public final class SourceTree {
  private SourceTree() {}

  /**
   * Copies the tree at {@code from} to {@code to}, leaving out every top-level entry named in {@code skipped}, those
   * ending in {@code .egg-info}, and {@code __pycache__} at any depth.
   */
  public static void copy(Path from, Path to, Set<String> skipped) throws IOException {
    try (var paths = Files.walk(from)) {
      for (Path p : (Iterable<Path>) paths::iterator) {
        Path rel = from.relativize(p);
        String first = rel.getNameCount() == 0 ? "" : rel.getName(0).toString();
        if (skipped.contains(first) || first.endsWith(".egg-info") || rel.toString().contains("__pycache__")) {
          continue;
        }
        Path target = to.resolve(rel.toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.createDirectories(target.getParent());
          Files.copy(p, target);
        }
      }
    }
  }
}
