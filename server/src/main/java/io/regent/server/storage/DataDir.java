package io.regent.server.storage;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * The layout of a node's data directory ({@code --data-dir}), the one place that knows it
 * (docs/architecture.md §11):
 *
 * <pre>
 *   DIR/lmdb/data.mdb                  the live state, outside Ratis's snapshot directory
 *   DIR/raft/&lt;group-uuid&gt;/current/     Ratis's log and metadata
 *   DIR/raft/&lt;group-uuid&gt;/sm/          Ratis's state-machine snapshots (replaced whole by an install)
 * </pre>
 *
 * @param root the data directory
 */
public record DataDir(Path root) {
  /** Name of LMDB's data file inside {@link #lmdb()}. */
  public static final String LMDB_FILE = "data.mdb";
  /**
   * The fixed id of Regent's Raft group: Ratis names the group's storage directory after it, so it must never
   * change across restarts or releases (docs/ratis.md §12). The Ratis adapter builds its group id from it.
   */
  public static final UUID RAFT_GROUP_UUID = UUID.nameUUIDFromBytes("regent".getBytes(StandardCharsets.UTF_8));

  /** The directory of the live LMDB environment. */
  public Path lmdb() {
    return root.resolve("lmdb");
  }

  /** The live LMDB data file. */
  public Path lmdbFile() {
    return lmdb().resolve(LMDB_FILE);
  }

  /** Ratis's storage directory ({@code raft.server.storage.dir}). */
  public Path raft() {
    return root.resolve("raft");
  }

  /** Ratis's directory of Regent's group: named after the fixed group id (docs/ratis.md §12). */
  public Path raftGroup() {
    return raft().resolve(RAFT_GROUP_UUID.toString());
  }

  /** Ratis's state-machine snapshot directory of Regent's group. */
  public Path snapshots() {
    return raftGroup().resolve("sm");
  }

  /**
   * Whether Ratis has a directory for Regent's group here: false for a new node, or one whose data is gone
   * (docs/architecture.md §11).
   */
  public boolean hasRaftState() {
    return Files.exists(raftGroup());
  }

  /**
   * Checks that this directory holds no Regent data (an absent or empty {@code lmdb/} and {@code raft/}).
   *
   * @throws IOException naming the first directory that holds data
   */
  public void requireNoData() throws IOException {
    for (Path p : new Path[] {lmdb(), raft()}) {
      if (Files.exists(p) && !isEmptyDir(p)) {
        throw new IOException(p + " already exists: restore needs a data directory without Regent data");
      }
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
}
