package io.regent.statemachine.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which failed writes {@link DataDirFull} calls a full data directory, and its one line. */
class DataDirFullTest {
  @TempDir
  Path dir;

  @Test
  void noSpaceAnywhereInTheCausesIsFullAndTheLineSaysWhereAndHowMuchIsFree() {
    RuntimeException e = new UncheckedIOException(new IOException("No space left on device"));
    String line = DataDirFull.diagnose(dir, e, "writing entry 7 to the Raft log").orElseThrow();
    assertThat(line).startsWith("data directory full: " + dir.toAbsolutePath() + " has ")
        .contains(" bytes free; writing entry 7 to the Raft log failed: ").doesNotContain("\n");
  }

  @Test
  void anInputOutputErrorWithRoomToSpareIsNotAFullDisk() {
    // the temporary directory has more than FULL_BYTES free: an EIO here is damage, not a full disk
    assertThat(DataDirFull.usableBytes(dir)).isGreaterThan(DataDirFull.FULL_BYTES);
    assertThat(DataDirFull.diagnose(dir, new IOException("Input/output error"), "x")).isEmpty();
  }

  @Test
  void aFailureThatIsNoInputOutputOneIsNotAFullDisk() {
    assertThat(DataDirFull.diagnose(dir, new IllegalStateException("a bug"), "x")).isEmpty();
  }
}
