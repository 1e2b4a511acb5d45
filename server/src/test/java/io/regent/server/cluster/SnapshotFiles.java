package io.regent.server.cluster;

import io.regent.server.storage.DataDir;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** The snapshot directory of a node's data directory, as the crash-safety tests inspect and damage it. */
final class SnapshotFiles {
  private SnapshotFiles() {
  }

  /** {@code DATA/raft/<group>/sm}: where Ratis keeps the state machine's snapshots. */
  static Path dir(Path dataDir) {
    return new DataDir(dataDir).snapshots();
  }

  /** Names of the entries in the snapshot directory (none when it does not exist yet). */
  static List<String> names(Path dataDir) {
    Path sm = dir(dataDir);
    if (!Files.isDirectory(sm)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(sm)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    } catch (IOException e) {
      return List.of(); // the directory changed while listed (a snapshot install renames it)
    }
  }

  /** The newest snapshot file that has its {@code .md5}. */
  static Path latest(Path dataDir) {
    List<String> names = names(dataDir);
    return names.stream().filter(n -> n.matches("snapshot\\.\\d+_\\d+") && names.contains(n + ".md5"))
        .max(Comparator.comparingLong(SnapshotFiles::index)).map(dir(dataDir)::resolve)
        .orElseThrow(() -> new AssertionError("no snapshot in " + dir(dataDir)));
  }

  /** Whether a snapshot is being written: a temporary LMDB copy, or a snapshot file without its .md5 yet. */
  static boolean writing(Path dataDir) {
    List<String> names = names(dataDir);
    return names.stream().anyMatch(n -> n.startsWith("lmdb-copy") || n.endsWith(".tmp")
        || (n.matches("snapshot\\.\\d+_\\d+") && !names.contains(n + ".md5")));
  }

  /** The log index in a snapshot file's name. */
  static long index(String name) {
    return Long.parseLong(name.substring(name.indexOf('_') + 1));
  }

  /** Inverts one byte of {@code file} at {@code offset}. */
  static void flipByte(Path file, long offset) {
    try (var f = new java.io.RandomAccessFile(file.toFile(), "rw")) {
      f.seek(offset);
      int b = f.read();
      f.seek(offset);
      f.write(b ^ 0xff);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
