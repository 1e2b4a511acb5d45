package io.regent.server.storage;

import java.nio.file.Path;

/**
 * The paths of one cell in a node's data directory ({@link DataDir#cell(int)}; docs/architecture.md §14).
 *
 * @param cell the cell, 0 and up
 * @param lmdb the directory of the cell's live LMDB environment
 * @param raftGroup Ratis's directory of the cell's group
 */
public record CellDir(int cell, Path lmdb, Path raftGroup) {
  /** The cell's live LMDB data file. */
  public Path lmdbFile() {
    return lmdb.resolve(DataDir.LMDB_FILE);
  }
}
