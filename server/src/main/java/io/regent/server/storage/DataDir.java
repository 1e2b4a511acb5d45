package io.regent.server.storage;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
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
 *   DIR/cells                          the number of cells, when more than one (docs/architecture.md §14)
 *   DIR/cells.d/&lt;N&gt;/lmdb/data.mdb       cell N's live state, N &gt;= 1; its Raft group sits beside cell 0's
 * </pre>
 *
 * <p>Cell 0 keeps the layout of a node without cells, so a data directory written before cells starts unchanged
 * as cell 0 of a one-cell cluster; {@link #cell(int)} gives each cell's paths.
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

  /** Name of the file that records the number of cells ({@link #cells()}). */
  static final String CELLS_FILE = "cells";

  /**
   * The group id of cell {@code cell}'s Raft group: {@link #RAFT_GROUP_UUID} for cell 0, a fixed name-based one
   * for each other cell, so that Ratis finds each cell's directory again after a restart.
   */
  public static UUID groupUuid(int cell) {
    return cell == 0 ? RAFT_GROUP_UUID
        : UUID.nameUUIDFromBytes(("regent-cell-" + cell).getBytes(StandardCharsets.UTF_8));
  }

  /** The paths of cell {@code cell} (0 and up) in this directory. */
  public CellDir cell(int cell) {
    Path lmdb = cell == 0 ? lmdb() : root.resolve("cells.d").resolve(Integer.toString(cell)).resolve("lmdb");
    return new CellDir(cell, lmdb, raft().resolve(groupUuid(cell).toString()));
  }

  /**
   * The number of cells this directory was created with: 1 when it records none (a directory of a release without
   * cells, or a new one).
   *
   * @throws IOException when the record cannot be read or is not a number of 1 and up
   */
  public int cells() throws IOException {
    Path f = root.resolve(CELLS_FILE);
    if (!Files.exists(f)) {
      return 1;
    }
    String text = Files.readString(f, StandardCharsets.UTF_8).trim();
    try {
      int n = Integer.parseInt(text);
      if (n >= 1) {
        return n;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw new IOException(f + " holds '" + text + "', not a number of cells");
  }

  /**
   * Checks that this directory serves {@code cells} cells and records the number when the directory has no Raft
   * state yet; a count is fixed once a node has run (docs/architecture.md §14).
   *
   * @throws CellCountException when the directory was created with another number of cells, or Ratis's storage
   *     holds a group directory that none of the cells claims
   * @throws IOException when the record cannot be read or written
   */
  public void claimCells(int cells) throws IOException {
    if (hasRaftState()) {
      int recorded = cells();
      if (recorded != cells) {
        throw new CellCountException(root + " was created with " + recorded + " cell(s), not " + cells
            + ": the number of cells is fixed when a cluster is created");
      }
    }
    Set<String> claimed = new HashSet<>();
    for (int c = 0; c < cells; c++) {
      claimed.add(groupUuid(c).toString());
    }
    if (Files.isDirectory(raft())) {
      try (Stream<Path> s = Files.list(raft())) {
        for (Path p : s.filter(Files::isDirectory).toList()) {
          String name = p.getFileName().toString();
          if (isUuid(name) && !claimed.contains(name)) {
            throw new CellCountException(p + " is a Raft group of no cell among " + cells
                + ": started with fewer cells than the data directory was created with?");
          }
        }
      }
    }
    if (!hasRaftState()) { // (re)written until Ratis has state: a start that stopped before it fixed nothing yet
      Path f = root.resolve(CELLS_FILE);
      if (cells > 1) {
        Files.createDirectories(root);
        Files.writeString(f, cells + "\n", StandardCharsets.UTF_8);
      } else {
        Files.deleteIfExists(f);
      }
    }
  }

  private static boolean isUuid(String name) {
    try {
      return UUID.fromString(name).toString().equals(name);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

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

  /** Ratis's directory of Regent's group (cell 0's): named after the fixed group id (docs/ratis.md §12). */
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
  public boolean hasRaftState() { // cell 0's group: every node has one, whatever its number of cells
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
