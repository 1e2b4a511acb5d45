package io.regent.statemachine.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import org.lmdbjava.LmdbNativeException;

/**
 * Tells a write that failed because the data directory's filesystem is full from any other storage failure, and
 * says so in one line (docs/architecture.md §11, docs/operations.md "Disk full").
 *
 * <p>Why a check of free space and not only the error: LMDB reports a short write as {@code EIO} ("Input/output
 * error"), not {@code ENOSPC}, so on a full filesystem an LMDB commit fails with {@code EIO}. A failure counts as
 * "full" when it carries {@code ENOSPC} ("No space left on device"), or when it is an I/O failure ({@code EIO},
 * an {@link IOException}) while the filesystem has fewer than {@link #FULL_BYTES} usable bytes at that moment.
 */
public final class DataDirFull {
  /** Below this many usable bytes a filesystem counts as full: a few LMDB pages or a Raft log entry need more. */
  public static final long FULL_BYTES = 1L << 20;
  /** The words every report starts with: what the operator greps for. */
  public static final String WORDS = "data directory full";
  private static final int ENOSPC = 28;
  private static final int EIO = 5;

  private DataDirFull() {
  }

  /**
   * The one line that says {@code dir} is full, when {@code failure} (a failed write under {@code dir}) came from
   * a full filesystem; empty when it did not (or when {@code dir}'s free space cannot be read).
   *
   * @param what what failed, for the line (e.g. "applying entry 42")
   */
  public static Optional<String> diagnose(Path dir, Throwable failure, String what) {
    boolean noSpace = false;
    boolean io = false;
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof LmdbNativeException n) {
        noSpace |= n.getResultCode() == ENOSPC;
        io |= n.getResultCode() == EIO;
      }
      if (t instanceof IOException) {
        io = true;
        String m = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
        noSpace |= m.contains("no space left") || m.contains("disk quota exceeded");
      }
    }
    if (!noSpace && !io) {
      return Optional.empty();
    }
    long free = usableBytes(dir);
    if (!noSpace && (free < 0 || free >= FULL_BYTES)) {
      return Optional.empty(); // an I/O error with room to spare: damage, not a full disk
    }
    return Optional.of(line(dir, free, what + " failed: " + failure));
  }

  /** Usable bytes on {@code dir}'s filesystem (its nearest existing ancestor's), or -1 when unreadable. */
  public static long usableBytes(Path dir) {
    Path p = dir.toAbsolutePath();
    while (p != null && !Files.exists(p)) {
      p = p.getParent();
    }
    try {
      return p == null ? -1 : Files.getFileStore(p).getUsableSpace();
    } catch (IOException e) {
      return -1;
    }
  }

  /** The one line: {@code data directory full: DIR has N bytes free; DETAIL; what to do}. */
  static String line(Path dir, long free, String detail) {
    return WORDS + ": " + dir.toAbsolutePath() + " has " + free + " bytes free; " + detail
        + "; this node's Raft division stops (regent server exits with code 6): free space, and the restart "
        + "catches it up (docs/operations.md, disk full)";
  }
}
