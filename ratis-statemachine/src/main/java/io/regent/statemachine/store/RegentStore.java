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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The LMDB environment that holds Regent's replicated state: leases, names, request records, etcd's keyspace
 * and the applied index. A snapshot ({@link #copyTo}) copies the whole environment, every database of it.
 *
 * <p>Uses lmdbjava's byte-array proxy, so no {@code --add-opens} flags are needed.
 *
 * <p>Durability: a Raft replica opens it with {@link #openUnsynced} ({@code MDB_NOSYNC}: no fsync per
 * commit). That is safe because the Raft log is durable and the applied index is stored in the same
 * transaction as the state: LMDB is a cache of the log's prefix. A process crash loses nothing (commits sit
 * in the OS page cache); after an OS crash the {@link UnsyncedMarker} says the file cannot be trusted and
 * the replica rebuilds it from its last snapshot plus the log (docs/architecture.md §11). The one requirement, that LMDB is
 * durable up to every snapshot index before Ratis purges the log behind it, is met by {@link #copyTo}, which
 * syncs first. Tools open it with {@link #open} (one fsync per commit) and the single-writer mode, where
 * LMDB is the only record of a grant, with {@link #openDurable}.
 *
 * <p>Thread-safety: LMDB allows one writer and many readers; {@link #write} calls must come from one thread
 * at a time (Ratis applies serially). Readers may run concurrently.
 */
public final class RegentStore implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RegentStore.class);
  /** Map size of the environment: 4 GiB of address space, allocated lazily by the OS. */
  public static final long MAP_SIZE_BYTES = 4L << 30;

  private final Path dir;
  private final boolean unsynced;
  private final Env<byte[]> env;
  private final Tables tables;

  private RegentStore(Path dir, boolean unsynced, EnvFlags... flags) {
    this.dir = dir;
    this.unsynced = unsynced;
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create LMDB directory " + dir, e);
    }
    if (unsynced) {
      UnsyncedMarker.set(dir);
    }
    this.env = Env.create(PROXY_BA).setMapSize(MAP_SIZE_BYTES).setMaxDbs(8).setMaxReaders(256)
        .open(dir.toFile(), flags);
    this.tables = new Tables(table("meta"), table("leases"), table("names"), table("requests"),
        table("request-order"), table("kv"), table("kv-lease"), table("kv-history"));
  }

  /**
   * Opens (creating) one table. {@code MDB_UNSIGNEDKEY} is lmdbjava's own flag, never passed to LMDB, so the files
   * do not change: it makes lmdbjava compare keys in Java as LMDB orders them, unsigned bytes. Without it, lmdbjava
   * 0.9.3 ends a {@code KeyRange} iteration with a signed comparison, and a range stopped early at the first key
   * with a byte of 0x80 or more where its end had less (the watch history, a lease's keys from id 127, etcd key
   * ranges; UnsignedKeyOrderTest).
   */
  private Dbi<byte[]> table(String name) {
    return env.openDbi(name, DbiFlags.MDB_CREATE, DbiFlags.MDB_UNSIGNEDKEY);
  }

  /**
   * Opens (creating when absent) the environment in {@code dir}, one fsync per commit (see above).
   * MDB_NOTLS: read transactions are not tied to the thread that opened them (gRPC and Ratis pools).
   */
  public static RegentStore open(Path dir) {
    return new RegentStore(dir, false, EnvFlags.MDB_NOTLS, EnvFlags.MDB_NOMETASYNC);
  }

  /**
   * Opens (creating when absent) the environment in {@code dir} without any fsync on commit, for a Raft
   * replica whose log is the durable record (see the class comment). Callers check
   * {@link UnsyncedMarker#trustworthy} before reusing an existing environment; {@link #close} syncs.
   */
  public static RegentStore openUnsynced(Path dir) {
    return new RegentStore(dir, true, EnvFlags.MDB_NOTLS, EnvFlags.MDB_NOSYNC);
  }

  /**
   * Opens the environment with full durability: a commit returns only after data and meta pages are on
   * disk. For the single-writer mode, where LMDB itself is the only record of a grant (no Raft log).
   */
  public static RegentStore openDurable(Path dir) {
    return new RegentStore(dir, false, EnvFlags.MDB_NOTLS);
  }

  /**
   * Replaces the environment in {@code dir} with a copy of a snapshot file (an LMDB {@code data.mdb} copy)
   * and opens it unsynced, as a replica does ({@link #openUnsynced}). Used on restore and on snapshot
   * install; the previous contents of {@code dir} are deleted.
   */
  public static RegentStore restore(Path dir, Path snapshotFile) {
    try {
      deleteTree(dir);
      Files.createDirectories(dir);
      // copy, then rename: a crash mid-copy leaves no data.mdb (so the replica restores again), never half a one
      Path partial = dir.resolve("data.mdb.partial");
      Files.copy(snapshotFile, partial, StandardCopyOption.REPLACE_EXISTING);
      Files.move(partial, dir.resolve("data.mdb"), StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot restore " + dir + " from " + snapshotFile, e);
    }
    return openUnsynced(dir);
  }

  /**
   * Opens a Raft replica's environment in {@code dir} as a restart finds it (docs/architecture.md §11): the
   * live environment when it can be trusted; rebuilt from {@code latestSnapshot} when the OS went down while
   * it held unsynced commits ({@link UnsyncedMarker}) or when there is none; empty when there is neither
   * (Ratis then replays the whole log). Opened unsynced, as {@link #openUnsynced}.
   *
   * @param latestSnapshot the latest snapshot file (an LMDB copy), or null when the replica has none
   * @throws DataDirDamagedException when the live file is truncated (mapping it would kill the JVM)
   */
  public static RegentStore recover(Path dir, Path latestSnapshot) {
    Path live = dir.resolve("data.mdb");
    boolean hasLive = Files.exists(live);
    String from = latestSnapshot == null ? "an empty state" : "snapshot " + latestSnapshot;
    if (hasLive && !UnsyncedMarker.trustworthy(dir)) {
      LOG.warn("{} was not synced before the OS restarted: rebuilding it from {} and the Raft log", dir, from);
      discard(dir);
      hasLive = false;
    }
    if (hasLive) {
      LmdbFileCheck.check(live); // before mapping it: a truncated file would SIGBUS
    }
    if (!hasLive && latestSnapshot != null) {
      LOG.info("no live LMDB in {}: restoring {}", dir, from);
      return restore(dir, latestSnapshot);
    }
    return openUnsynced(dir);
  }

  /** Runs {@code body} in a read-only transaction and returns its result. */
  public <T> T read(Function<StateTxn, T> body) {
    try (Txn<byte[]> txn = env.txnRead()) {
      return body.apply(new StateTxn(env, txn, tables));
    }
  }

  /** Runs {@code body} in a write transaction, commits it (durably unless unsynced), and returns its result. */
  public <T> T write(Function<StateTxn, T> body) {
    try (Txn<byte[]> txn = env.txnWrite()) {
      T result = body.apply(new StateTxn(env, txn, tables));
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

  /** Closes the environment; an unsynced one is synced first and its {@link UnsyncedMarker} removed. */
  @Override
  public void close() {
    if (unsynced) {
      env.sync(true);
      UnsyncedMarker.clear(dir);
    }
    env.close();
  }

  /**
   * Deletes the environment in {@code dir} (after an OS crash made it untrustworthy, see
   * {@link UnsyncedMarker}), so that the replica rebuilds it from a snapshot and the log.
   */
  private static void discard(Path dir) {
    try {
      deleteTree(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + dir, e);
    }
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
