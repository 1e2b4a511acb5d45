package io.regent.cli.command.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.regent.cli.command.SnapshotCommandTest;
import io.regent.cli.output.ExitCodes;
import io.regent.client.RegentClient;
import io.regent.server.RegentServer;
import io.regent.server.config.ServerConfig;
import io.regent.server.storage.DataDir;
import io.regent.statemachine.store.DataDirDamagedException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code regent server} on a data directory whose latest snapshot was damaged while the node was down: exit 1
 * and one line on stderr naming the file and what to do, instead of a start with lost state.
 */
@Tag("cluster")
class ServerDamagedSnapshotTest {
  @TempDir
  Path dir;
  Path data;
  String raft;
  Path latest;

  @BeforeEach
  void aRealDataDirWithSnapshots() throws Exception {
    data = dir.resolve("s1");
    raft = "127.0.0.1:" + SnapshotCommandTest.freePort();
    int api = SnapshotCommandTest.freePort();
    try (RegentServer s = RegentServer.start(ServerConfig.builder("s1", data).raftAddress(raft).apiPort(api)
        .snapshots(20, 8 * 1024).build());
         RegentClient c = RegentClient.connect("127.0.0.1:" + api)) {
      for (int i = 0; i < 30; i++) {
        c.elections().campaign("name-" + i, c.leases().grant(600_000), ByteString.copyFromUtf8("v" + i));
      }
    }
    Path sm = new DataDir(data).snapshots();
    try (Stream<Path> files = Files.list(sm)) {
      latest = files.filter(p -> p.getFileName().toString().matches("snapshot\\.\\d+_\\d+"))
          .max(Comparator.comparingLong(p -> Long.parseLong(p.getFileName().toString().replaceAll(".*_", ""))))
          .orElseThrow();
    }
  }

  private SnapshotCommandTest.Run server() throws Exception {
    return SnapshotCommandTest.run("server", "--id", "s1", "--peers", "s1=" + raft, "--api-port",
        String.valueOf(SnapshotCommandTest.freePort()), "--data-dir", data.toString());
  }

  @Test
  void flippedBytesInTheLatestSnapshotAreExitOneWithOneLineNamingIt() throws Exception {
    try (RandomAccessFile f = new RandomAccessFile(latest.toFile(), "rw")) {
      f.seek(f.length() / 2);
      int b = f.read();
      f.seek(f.length() / 2);
      f.write(b ^ 0xff);
    }

    SnapshotCommandTest.Run r = server();

    assertThat(r.code()).isEqualTo(ExitCodes.ERROR);
    assertThat(r.err()).startsWith("error: " + latest + ": snapshot does not match its checksum file "
        + latest.getFileName() + ".md5").endsWith(DataDirDamagedException.WHAT_TO_DO).doesNotContain("\n");
  }

  @Test
  void aLostLatestSnapshotFileIsExitOneWithOneLineNamingIt() throws Exception {
    Files.delete(latest);

    SnapshotCommandTest.Run r = server();

    assertThat(r.code()).isEqualTo(ExitCodes.ERROR);
    assertThat(r.err()).isEqualTo("error: " + latest + ": snapshot file missing (its checksum file "
        + latest.getFileName() + ".md5 remains); " + DataDirDamagedException.WHAT_TO_DO);
  }
}
