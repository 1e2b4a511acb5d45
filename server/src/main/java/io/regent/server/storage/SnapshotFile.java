package io.regent.server.storage;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * The file written by {@code regent snapshot save} and read by {@code regent snapshot restore}:
 *
 * <pre>
 *   8 bytes   magic "RGNTSNP1"
 *   8 bytes   applied index N of the state (big-endian)
 *   8 bytes   length L of the LMDB file (big-endian)
 *   L bytes   a compacted LMDB environment (data.mdb) holding Regent's tables at index N
 *   32 bytes  SHA-256 of every byte before it
 * </pre>
 *
 * <p>{@link OfflineSnapshots} saves one from a stopped node's data directory and restores one into a new
 * node's; the {@code Maintenance} service streams the LMDB part from a running node.
 */
public final class SnapshotFile {
  static final byte[] MAGIC = "RGNTSNP1".getBytes(StandardCharsets.US_ASCII);
  static final int HEADER_BYTES = 24;
  static final int TRAILER_BYTES = 32;

  private SnapshotFile() {
  }

  /** Writes a snapshot file at {@code target} (atomically, through {@code target.part}) from an LMDB copy. */
  public static void write(Path target, long appliedIndex, Path lmdbFile) throws IOException {
    Path part = target.resolveSibling(target.getFileName() + ".part");
    MessageDigest sha = sha256();
    long length = Files.size(lmdbFile);
    try (OutputStream out = Files.newOutputStream(part)) {
      byte[] header = ByteBuffer.allocate(HEADER_BYTES).put(MAGIC).putLong(appliedIndex).putLong(length).array();
      sha.update(header);
      out.write(header);
      try (InputStream in = new DigestInputStream(Files.newInputStream(lmdbFile), sha)) {
        in.transferTo(out);
      }
      out.write(sha.digest());
    }
    Files.move(part, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /**
   * What a checked snapshot file holds.
   *
   * @param appliedIndex the applied index N of the state: every token in it is at most N
   * @param lmdbBytes length of the LMDB file, bytes
   * @param sha256 the file's checksum, lower-case hex
   */
  public record Header(long appliedIndex, long lmdbBytes, String sha256) {
  }

  /**
   * Checks {@code file} (magic, length, checksum) and, when {@code lmdbOut} is not null, extracts its LMDB
   * into that file.
   *
   * @throws IOException with a one-line reason when the file is not a complete, intact Regent snapshot
   */
  public static Header check(Path file, Path lmdbOut) throws IOException {
    if (!Files.isRegularFile(file)) {
      throw new IOException("snapshot " + file + ": no such file");
    }
    long size = Files.size(file);
    MessageDigest sha = sha256();
    try (DataInputStream in = new DataInputStream(Files.newInputStream(file))) {
      byte[] header = new byte[HEADER_BYTES];
      if (size < HEADER_BYTES) {
        throw new IOException("snapshot " + file + " is truncated: " + size + " bytes, not even a header");
      }
      in.readFully(header);
      if (!Arrays.equals(Arrays.copyOf(header, MAGIC.length), MAGIC)) {
        throw new IOException("snapshot " + file + " is not a Regent snapshot (bad magic)");
      }
      ByteBuffer b = ByteBuffer.wrap(header, MAGIC.length, 16);
      long index = b.getLong();
      long length = b.getLong();
      long expected = HEADER_BYTES + length + TRAILER_BYTES;
      if (length < 0 || size < expected) {
        throw new IOException("snapshot " + file + " is truncated: " + size + " bytes, expected " + expected);
      }
      if (size > expected) {
        throw new IOException("snapshot " + file + " is corrupt: " + size + " bytes, expected " + expected);
      }
      sha.update(header);
      try (OutputStream out = lmdbOut == null ? OutputStream.nullOutputStream() : Files.newOutputStream(lmdbOut)) {
        byte[] buf = new byte[64 * 1024];
        long left = length;
        while (left > 0) {
          int n = in.read(buf, 0, (int) Math.min(buf.length, left));
          if (n < 0) {
            throw new IOException("snapshot " + file + " is truncated");
          }
          sha.update(buf, 0, n);
          out.write(buf, 0, n);
          left -= n;
        }
      }
      byte[] stored = new byte[TRAILER_BYTES];
      in.readFully(stored);
      byte[] actual = sha.digest();
      if (!MessageDigest.isEqual(stored, actual)) {
        throw new IOException("snapshot " + file + " is corrupt: SHA-256 " + HexFormat.of().formatHex(actual)
            + " does not match the recorded " + HexFormat.of().formatHex(stored));
      }
      return new Header(index, length, HexFormat.of().formatHex(actual));
    }
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }
}
