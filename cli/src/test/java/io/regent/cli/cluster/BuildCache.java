package io.regent.cli.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * What the client tests build from the repository's sources (the TypeScript package and its tarball, the Python
 * wheel and a virtual environment with it installed), built once per Maven run of the module instead of once per
 * test class: each build lives in {@code target/client-builds/<name>-<key>/}, where the key is the {@link ContentKey}
 * of its sources and tools, so a build of other sources is never reused, and a later run without {@code clean}
 * reuses it while they are unchanged.
 *
 * <p>The module's two test JVMs may ask for the same build at once: a file lock beside it lets one build while the
 * other waits on the lock, then finds it complete. A build counts only once its builder returned ({@code .complete}
 * in its directory), so one cut short (a JVM killed on a timeout) is removed and made again by the next that asks.
 */
public final class BuildCache {
  /** Under the module's target directory (surefire runs in the module's directory), removed by {@code clean}. */
  private static final Path ROOT = Path.of("target", "client-builds").toAbsolutePath();
  private static final String COMPLETE = ".complete";

  private BuildCache() {}

  /** Makes a build in an empty directory. */
  @FunctionalInterface
  public interface Builder {
    /** Builds into {@code dir}, which exists and is empty; throws when a step fails. */
    void build(Path dir) throws Exception;
  }

  /**
   * The directory of the build {@code name} with {@code key}: made by {@code builder} unless a complete one is there.
   * Synchronized because a JVM holds a file's lock for all its threads: the lock keeps the other JVM out, this
   * keeps this JVM's other threads out.
   */
  public static synchronized Path get(String name, String key, Builder builder) throws Exception {
    Files.createDirectories(ROOT);
    Path dir = ROOT.resolve(name + "-" + key);
    try (FileChannel channel = FileChannel.open(ROOT.resolve(name + "-" + key + ".lock"), StandardOpenOption.CREATE,
        StandardOpenOption.WRITE); FileLock lock = channel.lock()) {
      if (!Files.exists(dir.resolve(COMPLETE))) {
        if (Files.exists(dir)) {
          delete(dir);  // what a build cut short left
        }
        Files.createDirectories(dir);
        builder.build(dir);
        Files.createFile(dir.resolve(COMPLETE));
      }
    }
    return dir;
  }

  /** The one file in {@code dir} whose name ends in {@code suffix} (what a build step wrote there); fails otherwise. */
  public static Path onlyFile(Path dir, String suffix) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      List<Path> found = files.filter(p -> p.toString().endsWith(suffix)).toList();
      if (found.size() != 1) {
        throw new AssertionError("not one " + suffix + " file in " + dir + ": " + found);
      }
      return found.get(0);
    }
  }

  private static void delete(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.delete(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    }
  }
}
