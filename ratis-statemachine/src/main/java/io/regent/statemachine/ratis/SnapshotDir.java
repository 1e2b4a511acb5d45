package io.regent.statemachine.ratis;

import io.regent.statemachine.store.DataDirDamagedException;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.stream.Stream;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a node's state-machine snapshot directory ({@code raft/<group>/sm/}) safe to start from, before Ratis
 * picks its latest snapshot.
 *
 * <p>Why: a snapshot is written as a temporary LMDB copy ({@code lmdb-copy*}), renamed to
 * {@code snapshot.<term>_<index>}, then given its {@code .md5} (written as {@code .md5.tmp}, then renamed); Ratis
 * purges the log behind a snapshot only after that. So after a {@code kill -9}, a copy directory, a
 * {@code *.tmp} file or a snapshot without {@code .md5} is garbage, and the previous snapshot plus the unpurged
 * log hold everything. Ratis itself would take a snapshot without {@code .md5} as the latest when no other
 * has one, and starts without any snapshot when a {@code .md5} is unreadable: both are silent losses.
 * The latest snapshot is the one a restarted node restores from and sends to lagging followers, so it is
 * checked against its {@code .md5} here; a mismatch (flipped bytes, a truncated file) or a missing snapshot
 * file whose {@code .md5} remains stops the node.
 */
final class SnapshotDir {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotDir.class);
  /** Prefix of the temporary directory in which {@code RegentStore.copyTo} writes a snapshot. */
  static final String COPY_PREFIX = "lmdb-copy";
  /** Suffix of Ratis's atomically written files while they are being written. */
  static final String TMP_SUFFIX = ".tmp";

  private SnapshotDir() {
  }

  /**
   * Removes the leftovers of interrupted snapshots from {@code dir} (logged at INFO), then checks its latest
   * snapshot against its {@code .md5}. Does nothing when {@code dir} does not exist.
   *
   * @throws DataDirDamagedException naming the file, when the latest snapshot does not match its {@code .md5},
   *     its {@code .md5} is unreadable, or a {@code .md5} newer than every snapshot has lost its snapshot file
   */
  static void prepare(Path dir) {
    if (!Files.isDirectory(dir)) {
      return;
    }
    try {
      removeLeftovers(dir);
      Optional<Path> latest = latestSnapshot(dir);
      checkOrphanChecksums(dir, latest.flatMap(p -> snapshotIndex(p.getFileName().toString())).orElse(-1L));
      if (latest.isPresent()) {
        verify(latest.get());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the snapshot directory " + dir, e);
    }
  }

  private static void removeLeftovers(Path dir) throws IOException {
    for (Path p : list(dir)) {
      String name = p.getFileName().toString();
      boolean leftover = name.startsWith(COPY_PREFIX) || name.endsWith(TMP_SUFFIX)
          || (snapshotIndex(name).isPresent() && !Files.exists(md5Of(p)));
      if (leftover) {
        deleteTree(p);
        LOG.info("removed {}: left by an interrupted snapshot (the previous snapshot and the log hold its state)", p);
      }
    }
  }

  /** The snapshot file in {@code dir} with the highest log index, if any. */
  private static Optional<Path> latestSnapshot(Path dir) throws IOException {
    return list(dir).stream().filter(p -> snapshotIndex(p.getFileName().toString()).isPresent())
        .max(Comparator.comparing(p -> snapshotIndex(p.getFileName().toString()).orElseThrow()));
  }

  /**
   * A {@code .md5} without its snapshot: older than the latest snapshot it is Ratis's leftover from deleting an
   * old snapshot (file first, then {@code .md5}); newer, the snapshot file was lost.
   */
  private static void checkOrphanChecksums(Path dir, long latest) throws IOException {
    for (Path p : list(dir)) {
      String name = p.getFileName().toString();
      if (!name.endsWith(MD5FileUtil.MD5_SUFFIX)) {
        continue;
      }
      Path snapshot = p.resolveSibling(name.substring(0, name.length() - MD5FileUtil.MD5_SUFFIX.length()));
      Optional<Long> index = snapshotIndex(snapshot.getFileName().toString());
      if (index.isEmpty() || Files.exists(snapshot)) {
        continue;
      }
      if (index.get() > latest) {
        throw new DataDirDamagedException(snapshot, "snapshot file missing (its checksum file " + p.getFileName()
            + " remains)");
      }
      Files.delete(p);
      LOG.info("removed {}: the checksum of an old snapshot that was deleted", p);
    }
  }

  private static void verify(Path snapshot) throws IOException {
    File file = snapshot.toFile();
    MD5Hash stored;
    try {
      stored = MD5FileUtil.readStoredMd5ForFile(file);
    } catch (IOException e) {
      throw new DataDirDamagedException(md5Of(snapshot), "unreadable snapshot checksum file (" + e.getMessage() + ")",
          e);
    }
    MD5Hash computed = MD5FileUtil.computeMd5ForFile(file);
    if (!computed.equals(stored)) {
      throw new DataDirDamagedException(snapshot, "snapshot does not match its checksum file "
          + md5Of(snapshot).getFileName() + " (MD5 stored " + stored + ", computed " + computed + ", "
          + Files.size(snapshot) + " bytes): damaged or truncated");
    }
    LOG.info("snapshot {} matches its checksum", snapshot);
  }

  private static Optional<Long> snapshotIndex(String name) {
    Matcher m = SimpleStateMachineStorage.SNAPSHOT_REGEX.matcher(name);
    return m.matches() ? Optional.of(Long.parseLong(m.group(2))) : Optional.empty();
  }

  private static Path md5Of(Path snapshot) {
    return MD5FileUtil.getDigestFileForFile(snapshot.toFile()).toPath();
  }

  private static List<Path> list(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.toList();
    }
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
