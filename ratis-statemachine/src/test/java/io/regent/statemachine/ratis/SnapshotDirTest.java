package io.regent.statemachine.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.regent.statemachine.store.DataDirDamagedException;
import io.regent.statemachine.store.RegentStore;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.apache.ratis.util.MD5FileUtil;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SnapshotDirTest {
  @TempDir
  Path tmp;
  Path sm;

  @BeforeEach
  void setUp() throws Exception {
    sm = Files.createDirectories(tmp.resolve("sm"));
  }

  /** A real snapshot as takeSnapshot writes it: an LMDB copy and its .md5. */
  private Path snapshot(long term, long index) throws Exception {
    Path file = sm.resolve("snapshot." + term + "_" + index);
    try (RegentStore store = RegentStore.open(tmp.resolve("env-" + index))) {
      store.write(t -> {
        t.setAppliedIndex(index);
        return null;
      });
      store.copyTo(file);
    }
    MD5FileUtil.computeAndSaveMd5ForFile(file.toFile());
    return file;
  }

  private String[] names() throws Exception {
    try (Stream<Path> s = Files.list(sm)) {
      return s.map(p -> p.getFileName().toString()).sorted().toArray(String[]::new);
    }
  }

  @Test
  void leftoversOfAnInterruptedSnapshotAreRemovedAndTheVerifiedOneStays() throws Exception {
    snapshot(1, 10);
    Path copy = Files.createDirectories(sm.resolve("lmdb-copy123456"));
    Files.write(copy.resolve("data.mdb"), new byte[5000]);
    Path partial = sm.resolve("snapshot.1_20");
    Files.write(partial, new byte[3000]); // renamed into place, killed before its .md5
    Files.writeString(sm.resolve("snapshot.1_30.md5.tmp"), "half a line");

    SnapshotDir.prepare(sm);

    assertThat(names()).containsExactly("snapshot.1_10", "snapshot.1_10.md5");
  }

  @Test
  void aChecksumOfAnOldDeletedSnapshotIsRemoved() throws Exception {
    Path old = snapshot(1, 10);
    snapshot(1, 20);
    Files.delete(old); // Ratis deletes an old snapshot's file, then its .md5: killed between the two

    SnapshotDir.prepare(sm);

    assertThat(names()).containsExactly("snapshot.1_20", "snapshot.1_20.md5");
  }

  @Test
  void flippedBytesInTheLatestSnapshotStopTheStartNamingIt() throws Exception {
    snapshot(1, 10);
    Path latest = snapshot(1, 20);
    try (RandomAccessFile f = new RandomAccessFile(latest.toFile(), "rw")) {
      f.seek(5000);
      int b = f.read();
      f.seek(5000);
      f.write(b ^ 0xff);
    }

    assertThatThrownBy(() -> SnapshotDir.prepare(sm)).isInstanceOf(DataDirDamagedException.class)
        .hasMessageStartingWith(latest + ": snapshot does not match its checksum file snapshot.1_20.md5")
        .hasMessageContaining(DataDirDamagedException.WHAT_TO_DO);
    assertThat(latest).exists(); // evidence stays for the operator
  }

  @Test
  void aTruncatedLatestSnapshotStopsTheStart() throws Exception {
    Path latest = snapshot(2, 40);
    try (var ch = java.nio.channels.FileChannel.open(latest, java.nio.file.StandardOpenOption.WRITE)) {
      ch.truncate(ch.size() / 2);
    }

    assertThatThrownBy(() -> SnapshotDir.prepare(sm)).isInstanceOf(DataDirDamagedException.class)
        .hasMessageContaining(latest.toString()).hasMessageContaining("damaged or truncated");
  }

  @Test
  void aLatestSnapshotFileThatIsGoneStopsTheStart() throws Exception {
    snapshot(1, 10);
    Path latest = snapshot(1, 20);
    Files.delete(latest);

    assertThatThrownBy(() -> SnapshotDir.prepare(sm)).isInstanceOf(DataDirDamagedException.class)
        .hasMessageStartingWith(latest + ": snapshot file missing (its checksum file snapshot.1_20.md5 remains)");
  }

  @Test
  void anUnreadableChecksumFileStopsTheStart() throws Exception {
    Path latest = snapshot(1, 10);
    Files.writeString(sm.resolve("snapshot.1_10.md5"), "not a checksum\n");

    assertThatThrownBy(() -> SnapshotDir.prepare(sm)).isInstanceOf(DataDirDamagedException.class)
        .hasMessageStartingWith(latest + ".md5: unreadable snapshot checksum file");
  }

  @Test
  void aSoundDirectoryIsLeftAsItIs() throws Exception {
    snapshot(1, 10);
    snapshot(3, 25);

    SnapshotDir.prepare(sm);
    SnapshotDir.prepare(tmp.resolve("absent"));

    assertThat(names()).containsExactly("snapshot.1_10", "snapshot.1_10.md5", "snapshot.3_25", "snapshot.3_25.md5");
  }
}
