package io.regent.statemachine.store;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A damaged {@code data.mdb} is refused with a message naming the file, before LMDB maps it. */
class LmdbFileCheckTest {
  @TempDir
  Path dir;
  Path file;

  @BeforeEach
  void writeState() {
    try (RegentStore store = RegentStore.openUnsynced(dir)) {
      for (int i = 1; i <= 2_000; i++) {
        long index = i;
        store.write(txn -> {
          txn.setAppliedIndex(index);
          return null;
        });
      }
    }
    file = dir.resolve("data.mdb");
  }

  @Test
  void aSoundFilePasses() {
    assertThatCode(() -> LmdbFileCheck.check(file)).doesNotThrowAnyException();
  }

  @Test
  void aFreshEmptyEnvironmentPasses() {
    RegentStore.open(dir.resolve("empty")).close();
    assertThatCode(() -> LmdbFileCheck.check(dir.resolve("empty").resolve("data.mdb"))).doesNotThrowAnyException();
  }

  @Test
  void aTruncatedFileIsRefusedNamingTheFileAndWhatToDo() throws Exception {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ch.truncate(3 * 4096);
    }
    assertThatThrownBy(() -> LmdbFileCheck.check(file)).isInstanceOf(DataDirDamagedException.class)
        .hasMessageContaining(file.toString()).hasMessageContaining("truncated").hasMessageContaining("rejoin");
  }

  @Test
  void aFileShorterThanItsMetaPagesIsRefused() throws Exception {
    Files.write(file, new byte[100]);
    assertThatThrownBy(() -> LmdbFileCheck.check(file)).isInstanceOf(DataDirDamagedException.class)
        .hasMessageContaining("less than its two meta pages");
  }

  @Test
  void aFileThatIsNotLmdbsIsRefused() throws Exception {
    byte[] junk = new byte[64 * 1024];
    java.util.Arrays.fill(junk, (byte) 0x5a);
    Files.write(file, junk);
    assertThatThrownBy(() -> LmdbFileCheck.check(file)).isInstanceOf(DataDirDamagedException.class)
        .hasMessageContaining("not an LMDB file");
  }
}
