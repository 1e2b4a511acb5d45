package io.regent.server.storage;

import io.regent.statemachine.store.RegentStore;
import io.regent.statemachine.store.StateTxn;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
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
 * {@link SnapshotFile}s and data directories of stopped nodes: {@code regent snapshot save --data-dir} and
 * {@code regent snapshot restore}.
 *
 * <p>Restore seeds a node's data directory so that the node, started with a fresh Raft log, continues from
 * N: the LMDB goes to {@code DIR/lmdb/data.mdb}, and a formatted Ratis storage gets the same file as its
 * state-machine snapshot {@code sm/snapshot.1_N}. Ratis then starts its log, commit and applied indexes at
 * N (exactly as after a restart whose log was purged up to a snapshot), so the first new entry has index
 * N + 1 and every new fencing token exceeds every token in the snapshot (tokens are at most N;
 * docs/architecture.md §11).
 */
public final class OfflineSnapshots {
  /** Raft term of the seeded snapshot and of the restored node's initial term. */
  static final long SEED_TERM = 1;

  private OfflineSnapshots() {
  }

  /**
   * Writes a snapshot of the LMDB state in a stopped node's data directory {@code dataDir} to {@code target}
   * (disaster recovery). The node must be stopped: its applies would race with nothing here, but its state
   * would move on after the copy.
   *
   * @throws IOException when {@code dataDir} holds no Regent state, or the copy cannot be written
   */
  public static SnapshotFile.Header save(Path dataDir, Path target) throws IOException {
    DataDir layout = new DataDir(dataDir);
    if (layout.cells() > 1) {
      throw new IOException(dataDir + " holds " + layout.cells() + " cells: snapshots of a cluster of several cells "
          + "are not supported in this release (docs/architecture.md §14)");
    }
    if (!Files.isRegularFile(layout.lmdbFile())) {
      throw new IOException(layout.lmdbFile() + ": no such file (is " + dataDir + " a Regent data directory?)");
    }
    Path dir = target.getParent() == null ? Path.of(".") : target.getParent();
    Path tmp = Files.createTempDirectory(dir, ".regent-snapshot");
    try (RegentStore store = RegentStore.open(layout.lmdb())) {
      long index = store.read(StateTxn::appliedIndex);
      Path copy = tmp.resolve(DataDir.LMDB_FILE);
      store.copyTo(copy);
      SnapshotFile.write(target, index, copy);
      return SnapshotFile.check(target, null);
    } finally {
      try (Stream<Path> s = Files.walk(tmp)) {
        for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /**
   * Restores {@code file} into the data directory {@code dataDir} of one node (which must hold no Regent
   * data). Every node of the new cluster is restored from the same file.
   *
   * @return the checked header
   * @throws IOException with a one-line reason when the file is damaged or {@code dataDir} holds data; then
   *     nothing of the file is left in {@code dataDir}
   */
  public static SnapshotFile.Header restore(Path file, Path dataDir) throws IOException {
    DataDir layout = new DataDir(dataDir);
    layout.requireNoData();
    Path lmdb = layout.lmdb();
    Files.createDirectories(lmdb);
    Path mdb = layout.lmdbFile();
    SnapshotFile.Header h;
    try {
      h = SnapshotFile.check(file, mdb);
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
        seedRaft(layout, h.appliedIndex(), mdb);
      }
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(mdb);
      Files.deleteIfExists(lmdb.resolve("lock.mdb"));
      throw e;
    }
    return h;
  }

  /**
   * Formats Ratis storage for Regent's group and installs {@code mdb} as its state-machine snapshot at (term
   * {@link #SEED_TERM}, {@code index}), with the current term also set to {@link #SEED_TERM}; the new
   * cluster's first election is for the next term, so the snapshot precedes the new log in term as well as in
   * index. (Term 0 would not do: Ratis refuses votes from peers whose last entry has term 0, taking their log
   * for empty.)
   */
  private static void seedRaft(DataDir layout, long index, Path mdb) throws IOException {
    File groupDir = layout.raftGroup().toFile();
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
}
