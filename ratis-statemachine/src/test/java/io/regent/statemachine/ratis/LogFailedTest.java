package io.regent.statemachine.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.replica.LeaseTimekeeper;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ratis's log worker, once a write failed, fails every later one while the division stays up; it tells the state
 * machine through {@code notifyLogFailed}, which records the first failure for good (the node's DivisionWatch
 * then stops the node): "data directory full" for a write that ran out of space.
 */
class LogFailedTest {
  @TempDir
  Path dir;

  @Test
  void aFailedLogWriteIsAStorageFaultForGood() {
    RegentStateMachine sm = new RegentStateMachine(dir.resolve("lmdb"), LeaseTimekeeper.NONE, new EventHub(10));
    assertThat(sm.storageFault()).isEmpty();

    sm.notifyLogFailed(new IOException("No space left on device"), null);
    sm.notifyLogFailed(new IOException("Log already failed"), null);

    assertThat(sm.storageFault()).hasValueSatisfying(f -> assertThat(f)
        .startsWith("data directory full: " + dir.resolve("lmdb").toAbsolutePath())
        .contains("writing the Raft log failed: java.io.IOException: No space left on device"));
  }
}
