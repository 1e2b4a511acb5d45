package io.regent.server.replication;

/**
 * The entry format a node may write now (docs/operations.md "Upgrades"): the highest log-entry version
 * that every voter of the current configuration — old and new during a change — publishes that it applies.
 */
@FunctionalInterface
public interface EntryFormat {
  /** Every build applies version 1: what a node writes when it knows nothing of the others. */
  EntryFormat OLDEST = () -> 1;

  /** The version to write now, at least 1. */
  int writable();
}
