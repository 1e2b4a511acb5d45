package io.regent.cli.command.server;

import static io.regent.cli.command.SnapshotCommandTest.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.regent.cli.command.SnapshotCommandTest.Run;
import io.regent.cli.output.ExitCodes;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code regent server} for a node outside the initial voters: bad flag combinations are usage errors. */
class JoinOptionsTest {
  @TempDir
  Path dir;

  private void assertUsage(String expected, String... args) {
    Run r = run(args);
    assertThat(r.code()).as(r.err()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).startsWith("error: " + expected).doesNotContain("\n");
    assertThat(dir.resolve("n4")).as("nothing started").satisfies(p -> assertThat(Files.exists(p)).isFalse());
  }

  @Test
  void peersAndRaftTogetherOrNeitherAreRefused() {
    String data = dir.resolve("n4").toString();
    assertUsage("--id and either --peers", "server", "--id", "n4", "--raft", "127.0.0.1:7004",
        "--peers", "n4=127.0.0.1:7004", "--data-dir", data);
    assertUsage("--id and either --peers", "server", "--id", "n4", "--data-dir", data);
  }

  @Test
  void joinNeedsRaftAndAWellFormedAddress() {
    String data = dir.resolve("n4").toString();
    assertUsage("--join takes this node's --raft address", "server", "--id", "n4", "--peers", "n4=127.0.0.1:7004",
        "--join", "127.0.0.1:7101", "--data-dir", data);
    assertUsage("invalid --raft 'n4-host'", "server", "--id", "n4", "--raft", "n4-host", "--join",
        "127.0.0.1:7101", "--data-dir", data);
  }
}
