package io.regent.statemachine.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The marker that tells a process crash (unsynced commits intact) from an OS crash (maybe lost). */
class UnsyncedMarkerTest {
  @TempDir
  Path dir;

  @Test
  void anOpenUnsyncedStoreIsMarkedAndTrustedWithinTheSameBoot() {
    RegentStore store = RegentStore.openUnsynced(dir);
    try {
      store.write(txn -> {
        txn.setAppliedIndex(7);
        return null;
      });
      assertThat(dir.resolve(UnsyncedMarker.FILE)).exists();
      assertThat(UnsyncedMarker.trustworthy(dir)).as("same boot: a kill -9 keeps the page cache").isTrue();
    } finally {
      store.close();
    }
    assertThat(dir.resolve(UnsyncedMarker.FILE)).as("a clean close syncs and removes it").doesNotExist();
    assertThat(UnsyncedMarker.trustworthy(dir)).isTrue();
  }

  @Test
  void aMarkerLeftByAnotherBootIsNotTrusted() throws Exception {
    RegentStore.openUnsynced(dir).close();
    Files.writeString(dir.resolve(UnsyncedMarker.FILE), "00000000-0000-0000-0000-000000000000");
    assertThat(UnsyncedMarker.trustworthy(dir)).isFalse();
  }

  @Test
  void durableAndToolStoresLeaveNoMarker() {
    RegentStore.open(dir.resolve("a")).close();
    try (RegentStore s = RegentStore.openDurable(dir.resolve("b"))) {
      assertThat(dir.resolve("b").resolve(UnsyncedMarker.FILE)).doesNotExist();
    }
    assertThat(dir.resolve("a").resolve(UnsyncedMarker.FILE)).doesNotExist();
  }
}
