package io.regent.statemachine.store;

import static org.lmdbjava.ByteArrayProxy.PROXY_BA;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.function.Function;
import org.lmdbjava.CopyFlags;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.lmdbjava.Txn;

/**
 * The LMDB environment that holds Regent's replicated state: leases, names and the applied index.
 *
 * <p>Uses lmdbjava's byte-array proxy, so no {@code --add-opens} flags are needed.
 *
 * <p>Durability: opened with {@code MDB_NOMETASYNC} (one fsync per commit instead of two). A process crash
 * loses nothing; an OS crash may undo the last commits but never breaks consistency (LMDB keeps ACI). That
 * is safe because the Raft log is durable and the applied index is stored in the same transaction as the
 * state: Ratis replays from the last snapshot and apply skips what LMDB already holds (DESIGN §2). The one
 * requirement, that LMDB is durable up to every snapshot index before Ratis purges the log behind it, is
 * met by {@link #copyTo}, which syncs first.
 *
 * <p>Thread-safety: LMDB allows one writer and many readers; {@link #write} calls must come from one thread
 * at a time (Ratis applies serially). Readers may run concurrently.
 */
public final class RegentStore implements AutoCloseable {
  /** Map size of the environment: 4 GiB of address space, allocated lazily by the OS. */
  public static final long MAP_SIZE_BYTES = 4L << 30;

  private final Path dir;
  private final Env<byte[]> env;
  private final Dbi<byte[]> meta;
  private final Dbi<byte[]> leases;
  private final Dbi<byte[]> names;

  private RegentStore(Path dir, EnvFlags... flags) {
    this.dir = dir;
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create LMDB directory " + dir, e);
    }
    this.env = Env.create(PROXY_BA).setMapSize(MAP_SIZE_BYTES).setMaxDbs(4).setMaxReaders(256)
        .open(dir.toFile(), flags);
    this.meta = env.openDbi("meta", DbiFlags.MDB_CREATE);
    this.leases = env.openDbi("leases", DbiFlags.MDB_CREATE);
    this.names = env.openDbi("names", DbiFlags.MDB_CREATE);
  }

  /**
   * Opens (creating when absent) the environment in {@code dir}, one fsync per commit (see above).
   * MDB_NOTLS: read transactions are not tied to the thread that opened them (gRPC and Ratis pools).
   */
  public static RegentStore open(Path dir) {
    return new RegentStore(dir, EnvFlags.MDB_NOTLS, EnvFlags.MDB_NOMETASYNC);
  }

  /**
   * Opens the environment with full durability: a commit returns only after data and meta pages are on
   * disk. For the single-writer mode, where LMDB itself is the only record of a grant (no Raft log).
   */
  public static RegentStore openDurable(Path dir) {
    return new RegentStore(dir, EnvFlags.MDB_NOTLS);
  }

  /**
   * Replaces the environment in {@code dir} with a copy of a snapshot file (an LMDB {@code data.mdb} copy)
   * and opens it. Used on restore and on snapshot install; the previous contents of {@code dir} are deleted.
   */
  public static RegentStore restore(Path dir, Path snapshotFile) {
    try {
      deleteTree(dir);
      Files.createDirectories(dir);
      Files.copy(snapshotFile, dir.resolve("data.mdb"), StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot restore " + dir + " from " + snapshotFile, e);
    }
    return open(dir);
  }

  /** Runs {@code body} in a read-only transaction and returns its result. */
  public <T> T read(Function<StateTxn, T> body) {
    try (Txn<byte[]> txn = env.txnRead()) {
      return body.apply(new StateTxn(txn, meta, leases, names));
    }
  }

  /** Runs {@code body} in a write transaction, commits it durably, and returns its result. */
  public <T> T write(Function<StateTxn, T> body) {
    try (Txn<byte[]> txn = env.txnWrite()) {
      T result = body.apply(new StateTxn(txn, meta, leases, names));
      txn.commit();
      return result;
    }
  }

  /**
   * Forces the live environment to disk, then writes a compacted, consistent copy of it to {@code target}
   * (a file that must not exist).
   *
   * @return the size of the copy in bytes
   */
  public long copyTo(Path target) {
    try {
      env.sync(true);
      Path tmp = Files.createTempDirectory(target.getParent(), "lmdb-copy");
      try {
        env.copy(tmp.toFile(), CopyFlags.MDB_CP_COMPACT);
        Files.move(tmp.resolve("data.mdb"), target, StandardCopyOption.ATOMIC_MOVE);
        return Files.size(target);
      } finally {
        deleteTree(tmp);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot copy LMDB to " + target, e);
    }
  }

  /** The directory of the live environment. */
  public Path dir() {
    return dir;
  }

  @Override
  public void close() {
    env.close();
  }

  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (var paths = Files.walk(root)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
