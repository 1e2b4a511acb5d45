package io.regent.statemachine.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Records that an LMDB environment is open without fsync ({@code MDB_NOSYNC}), so that a later open can
 * tell whether its unsynced commits may have been lost.
 *
 * <p>Why the kernel's boot id: commits made with {@code MDB_NOSYNC} are in the OS page cache, which a
 * process crash ({@code kill -9}) does not touch, so a restart within the same boot finds them intact. Only
 * an OS crash or power loss can lose them, and LMDB's documentation warns that such a loss may also leave
 * the file inconsistent. The marker holds the boot id ({@code /proc/sys/kernel/random/boot_id}) of the boot
 * that opened the environment; it is written and fsynced before the first unsynced commit and removed after
 * the final sync of a clean close. A marker from another boot means: do not trust this file.
 */
public final class UnsyncedMarker {
  /** Name of the marker file inside the LMDB directory. */
  public static final String FILE = "unsynced-since-boot";
  private static final Path BOOT_ID = Path.of("/proc/sys/kernel/random/boot_id");

  private UnsyncedMarker() {
  }

  /**
   * Whether the environment in {@code dir} can be used as it is: true when it was closed cleanly (no
   * marker) or was last opened during the current boot.
   */
  public static boolean trustworthy(Path dir) {
    Path marker = dir.resolve(FILE);
    if (!Files.exists(marker)) {
      return true;
    }
    try {
      String current = bootId();
      return !current.isEmpty() && current.equals(Files.readString(marker, StandardCharsets.UTF_8).trim());
    } catch (IOException e) {
      return false;
    }
  }

  /** Writes the marker durably (file and directory entry) before the environment takes unsynced commits. */
  static void set(Path dir) {
    Path marker = dir.resolve(FILE);
    try {
      Files.writeString(marker, bootId(), StandardCharsets.UTF_8);
      try (FileChannel ch = FileChannel.open(marker, StandardOpenOption.WRITE)) {
        ch.force(true);
      }
      syncDirectory(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + marker, e);
    }
  }

  /** Removes the marker; call only after the environment has been synced for the last time. */
  static void clear(Path dir) {
    try {
      Files.deleteIfExists(dir.resolve(FILE));
      syncDirectory(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove " + dir.resolve(FILE), e);
    }
  }

  /** The current boot id; empty when the platform has none (then no unsynced environment is trusted). */
  static String bootId() throws IOException {
    return Files.exists(BOOT_ID) ? Files.readString(BOOT_ID, StandardCharsets.UTF_8).trim() : "";
  }

  private static void syncDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }
}
