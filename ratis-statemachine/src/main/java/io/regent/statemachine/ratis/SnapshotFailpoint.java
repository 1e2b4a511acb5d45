package io.regent.statemachine.ratis;

import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A failpoint in the snapshot write, for crash tests: a hook run by {@link RegentStateMachine#takeSnapshot()}
 * after the snapshot file is written and before its {@code .md5} is, the moment a {@code kill -9} leaves a
 * snapshot that must not count (see {@link SnapshotDir}). A test that blocks in the hook holds the write open
 * for as long as it needs to kill the node there; a test that polled the directory for that moment could miss
 * it (a snapshot of a few MB is written in milliseconds). Unset, it does nothing.
 */
public final class SnapshotFailpoint {
  private static final Consumer<Path> NONE = snapshot -> { };
  private static volatile Consumer<Path> beforeChecksum = NONE;

  private SnapshotFailpoint() {
  }

  /**
   * Installs {@code hook}, run on the thread that takes the snapshot (Ratis's apply thread: no entry applies
   * on this node while it blocks) with the snapshot file just written.
   */
  public static void beforeChecksum(Consumer<Path> hook) {
    beforeChecksum = Objects.requireNonNull(hook, "hook");
  }

  /** Removes the hook. */
  public static void clear() {
    beforeChecksum = NONE;
  }

  static void reachedBeforeChecksum(Path snapshot) {
    beforeChecksum.accept(snapshot);
  }
}
