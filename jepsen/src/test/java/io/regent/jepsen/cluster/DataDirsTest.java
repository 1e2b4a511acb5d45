package io.regent.jepsen.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node's data directory left by an earlier run (an etcd member's WAL, say) is gone after delete; none is fine. */
class DataDirsTest {
  @TempDir
  Path dir;

  @Test
  void deletesTheDirectoryAndEverythingUnderIt() throws Exception {
    Path member = Files.createDirectories(dir.resolve("e1/member/wal"));
    Files.writeString(member.resolve("0000000000000000-0000000000000000.wal"), "an earlier cluster");
    Files.writeString(dir.resolve("e1.log"), "kept");
    DataDirs.delete(dir.resolve("e1"));
    assertThat(dir.resolve("e1")).doesNotExist();
    assertThat(dir.resolve("e1.log")).exists();
  }

  @Test
  void aDirectoryThatDoesNotExistIsNothingToDo() throws Exception {
    DataDirs.delete(dir.resolve("absent"));
    assertThat(dir.resolve("absent")).doesNotExist();
  }
}
