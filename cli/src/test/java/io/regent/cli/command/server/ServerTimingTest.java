package io.regent.cli.command.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.cli.command.SnapshotCommandTest;
import io.regent.cli.output.ExitCodes;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code regent server} whose JVM turns Ratis's pre-vote off under the leadership lease: a usage error (exit 2)
 * and one line on stderr, instead of a node whose lease rests on a vote it does not check (docs/architecture.md
 * §8.1).
 */
class ServerTimingTest {
  @Test
  void preVoteOffUnderTheLeaseIsExitTwoWithOneLine(@TempDir Path dir) throws Exception {
    System.setProperty("raft.server.leaderelection.pre-vote", "false");
    try {
      SnapshotCommandTest.Run r = SnapshotCommandTest.run("server", "--id", "s1", "--peers",
          "s1=127.0.0.1:" + SnapshotCommandTest.freePort(), "--api-port", String.valueOf(SnapshotCommandTest.freePort()),
          "--data-dir", dir.resolve("s1").toString());
      assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
      assertThat(r.err()).startsWith("error: --confirm lease needs Ratis's pre-vote").doesNotContain("\n");
    } finally {
      System.clearProperty("raft.server.leaderelection.pre-vote");
    }
  }
}
