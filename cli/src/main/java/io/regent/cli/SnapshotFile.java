package io.regent.cli;

import io.regent.server.raft.RaftSetup;
import io.regent.statemachine.store.RegentStore;
import io.regent.statemachine.store.StateTxn;
import java.io.DataInputStream;
import java.io.File;
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
import java.util.stream.Stream;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.server.storage.RaftStorageImpl;
import org.apache.ratis.server.storage.RaftStorageMetadata;
import org.apache.ratis.server.storage.StorageImplUtils;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.util.MD5FileUtil;
import org.apache.ratis.util.SizeInBytes;

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
 * <p>Restore seeds a node's data directory so that the node, started with a fresh Raft log, continues from
 * N: the LMDB goes to {@code DIR/lmdb/data.mdb}, and a formatted Ratis storage gets the same file as its
 * state-machine snapshot {@code sm/snapshot.1_N}. Ratis then starts its log, commit and applied indexes at
 * N (exactly as after a restart whose log was purged up to a snapshot), so the first new entry has index
 * N + 1 and every new fencing token exceeds every token in the snapshot (tokens are at most N).
 */
final class SnapshotFile {
  static final byte[] MAGIC = "RGNTSNP1".getBytes(StandardCharsets.US_ASCII);
  static final int HEADER_BYTES = 24;
  static final int TRAILER_BYTES = 32;
  /** Raft term of the seeded snapshot and of the restored node's initial term. */
  static final long SEED_TERM = 1;

  private SnapshotFile() {
  }

  /** Writes a snapshot file at {@code target} (atomically, through {@code target.part}) from an LMDB copy. */
  static void write(Path target, long appliedIndex, Path lmdbFile) throws IOException {
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
   * Writes a snapshot of the LMDB state in a stopped node's data directory {@code dataDir} to {@code target}
   * (disaster recovery). The node must be stopped: its applies would race with nothing here, but its state
   * would move on after the copy.
   */
  static Header saveOffline(Path dataDir, Path target) throws IOException {
    Path lmdb = dataDir.resolve("lmdb");
    if (!Files.isRegularFile(lmdb.resolve("data.mdb"))) {
      throw new IOException(lmdb.resolve("data.mdb") + ": no such file (is " + dataDir + " a Regent data directory?)");
    }
    Path dir = target.getParent() == null ? Path.of(".") : target.getParent();
    Path tmp = Files.createTempDirectory(dir, ".regent-snapshot");
    try (RegentStore store = RegentStore.open(lmdb)) {
      long index = store.read(StateTxn::appliedIndex);
      Path copy = tmp.resolve("data.mdb");
      store.copyTo(copy);
      write(target, index, copy);
      return check(target, null);
    } finally {
      try (Stream<Path> s = Files.walk(tmp)) {
        for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /** What a checked snapshot file holds. */
  record Header(long appliedIndex, long lmdbBytes, String sha256) {
  }

  /**
   * Checks {@code file} (magic, length, checksum) and, when {@code lmdbOut} is not null, extracts its LMDB
   * into that file.
   *
   * @throws IOException with a one-line reason when the file is not a complete, intact Regent snapshot
   */
  static Header check(Path file, Path lmdbOut) throws IOException {
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

  /**
   * Restores {@code file} into the data directory {@code dataDir} of one node (which must hold no Regent
   * data). Every node of the new cluster is restored from the same file.
   *
   * @return the checked header
   */
  static Header restore(Path file, Path dataDir) throws IOException {
    Path lmdb = dataDir.resolve("lmdb");
    Path raft = dataDir.resolve("raft");
    for (Path p : new Path[] {lmdb, raft}) {
      if (Files.exists(p) && !isEmptyDir(p)) {
        throw new IOException(p + " already exists: restore needs a data directory without Regent data");
      }
    }
    Files.createDirectories(lmdb);
    Path mdb = lmdb.resolve("data.mdb");
    Header h;
    try {
      h = check(file, mdb);
      long stored;
      try (RegentStore store = RegentStore.open(lmdb)) {
        stored = store.read(StateTxn::appliedIndex);
      }
      Files.deleteIfExists(lmdb.resolve("lock.mdb"));
      if (stored != h.appliedIndex()) {
        throw new IOException("snapshot " + file + " is corrupt: header says index " + h.appliedIndex()
            + ", its state says " + stored);
      }
      if (h.appliedIndex() > 0) {
        seedRaft(raft, h.appliedIndex(), mdb);
      }
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(mdb);
      Files.deleteIfExists(lmdb.resolve("lock.mdb"));
      throw e;
    }
    return h;
  }

  /**
   * Formats Ratis storage for Regent's group under {@code raftDir} and installs {@code mdb} as its
   * state-machine snapshot at (term {@link #SEED_TERM}, {@code index}), with the current term also set to
   * {@link #SEED_TERM}; the new cluster's first election is for the next term, so the snapshot precedes the
   * new log in term as well as in index. (Term 0 would not do: Ratis refuses votes from peers whose last
   * entry has term 0, taking their log for empty.)
   */
  private static void seedRaft(Path raftDir, long index, Path mdb) throws IOException {
    File groupDir = raftDir.resolve(RaftSetup.GROUP_ID.getUuid().toString()).toFile();
    RaftStorageImpl storage = StorageImplUtils.newRaftStorage(groupDir, SizeInBytes.ZERO,
        RaftStorage.StartupOption.FORMAT, RaftServerConfigKeys.Log.CorruptionPolicy.getDefault());
    storage.initialize();
    try {
      SimpleStateMachineStorage sm = new SimpleStateMachineStorage();
      sm.init(storage);
      storage.getMetadataFile().persist(RaftStorageMetadata.valueOf(SEED_TERM,
          RaftStorageMetadata.getDefault().getVotedFor()));
      File snap = sm.getSnapshotFile(SEED_TERM, index);
      Files.copy(mdb, snap.toPath());
      MD5FileUtil.computeAndSaveMd5ForFile(snap);
    } finally {
      storage.close();
    }
  }

  private static boolean isEmptyDir(Path p) throws IOException {
    if (!Files.isDirectory(p)) {
      return false;
    }
    try (Stream<Path> s = Files.list(p)) {
      return s.findAny().isEmpty();
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }
}
