package io.regent.statemachine.store;

import java.nio.file.Path;

/**
 * A node's data directory holds a file that cannot be what the node wrote (truncated, not an LMDB file, a
 * corrupt Raft log segment): the node refuses to start rather than start with lost state. The message names
 * the file, what is wrong and what to do, in one line.
 */
public final class DataDirDamagedException extends RuntimeException {
  /** What an operator does about it (docs/operations.md, disaster recovery). */
  public static final String WHAT_TO_DO = "stop this node, move its data directory aside and let it rejoin "
      + "empty (it catches up from the cluster; docs/operations.md, disaster recovery), or restore a snapshot";

  /**
   * @param file the damaged file
   * @param problem what is wrong with it
   */
  public DataDirDamagedException(Path file, String problem) {
    super(file + ": " + problem + "; " + WHAT_TO_DO);
  }

  /** As above, keeping the exception that revealed the damage. */
  public DataDirDamagedException(Path file, String problem, Throwable cause) {
    super(file + ": " + problem + "; " + WHAT_TO_DO, cause);
  }
}
