package io.regent.cli.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Copies a client's source tree out of the repository, so that what a build or pip writes beside its sources
 * (build/, *.egg-info, dist/, node_modules/) lands in the copy and the repository stays clean.
 */
public final class SourceTree {
  private SourceTree() {}

  /**
   * Copies the tree at {@code from} to {@code to}: the files {@link #files} names.
   */
  public static void copy(Path from, Path to, Set<String> skipped) throws IOException {
    for (Path rel : files(from, skipped)) {
      Path target = to.resolve(rel.toString());
      Files.createDirectories(target.getParent());
      Files.copy(from.resolve(rel), target);
    }
  }

  /**
   * The regular files under {@code from}, relative to it and sorted, leaving out every top-level entry named in
   * {@code skipped}, those ending in {@code .egg-info}, and {@code __pycache__} at any depth: what {@link #copy}
   * copies, and so what {@link ContentKey#tree} reads.
   */
  public static List<Path> files(Path from, Set<String> skipped) throws IOException {
    try (Stream<Path> paths = Files.walk(from)) {
      return paths.filter(Files::isRegularFile).map(from::relativize).filter(rel -> {
        String first = rel.getName(0).toString();
        return !skipped.contains(first) && !first.endsWith(".egg-info") && !rel.toString().contains("__pycache__");
      }).sorted().toList();
    }
  }
}
