package io.regent.cli.command;

import static io.regent.cli.command.SnapshotCommandTest.freePort;
import static io.regent.cli.command.SnapshotCommandTest.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.regent.cli.command.SnapshotCommandTest.Run;
import io.regent.cli.output.ExitCodes;
import io.regent.server.RegentServer;
import io.regent.server.config.ServerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code regent member}: the listing, and refusals that print one line, exit non-zero and change nothing. */
@Tag("cluster")
class MemberCommandTest {
  @TempDir
  Path dir;
  RegentServer node;
  String endpoint;
  String raft;

  @BeforeEach
  void start() throws Exception {
    raft = "127.0.0.1:" + freePort();
    int apiPort = freePort();
    endpoint = "127.0.0.1:" + apiPort;
    node = RegentServer.start(ServerConfig.of("s1", Map.of("s1", raft), apiPort, dir.resolve("s1")));
  }

  @AfterEach
  void stop() throws Exception {
    node.close();
  }

  @Test
  void listPrintsEachMemberWithItsRoleAddressesAndTheLeader() {
    String line = "s1 voter raft=" + raft + " api=" + endpoint + " leader";
    // The node publishes its API address through Raft once it leads: wait for that.
    await().atMost(Duration.ofSeconds(30)).until(() -> run("member", "list", "--endpoints", endpoint).out()
        .equals(line));
    Run json = run("member", "list", "--endpoints", endpoint, "-w", "json");
    assertThat(json.code()).as(json.err()).isZero();
    assertThat(json.out()).isEqualTo("{\"id\":\"s1\",\"role\":\"voter\",\"raft\":\"" + raft + "\",\"api\":\""
        + endpoint + "\",\"leader\":true}");
  }

  @Test
  void refusedChangesPrintOneLineAndChangeNothing() {
    // "before" must be taken after the node has published its API address through Raft, or the listing
    // changes under the test for a reason of its own.
    String before = "s1 voter raft=" + raft + " api=" + endpoint + " leader";
    await().atMost(Duration.ofSeconds(30)).until(() -> run("member", "list", "--endpoints", endpoint).out()
        .equals(before));

    Run last = run("member", "remove", "s1", "--endpoints", endpoint);
    assertThat(last.code()).isEqualTo(ExitCodes.ERROR);
    assertThat(last.err()).isEqualTo("error: FAILED_PRECONDITION: member s1 is the last voter; add and promote "
        + "another member before removing it");

    Run unknown = run("member", "remove", "s7", "--endpoints", endpoint);
    assertThat(unknown.code()).isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(unknown.err()).startsWith("error: NOT_FOUND: no member s7").doesNotContain("\n");

    Run twice = run("member", "add", "s1", "--raft", "127.0.0.1:1", "--api", "127.0.0.1:2", "--endpoints", endpoint);
    assertThat(twice.code()).isEqualTo(ExitCodes.ERROR);
    assertThat(twice.err()).startsWith("error: ALREADY_EXISTS: member s1 already exists (voter at " + raft)
        .doesNotContain("\n");

    Run badAddress = run("member", "add", "s2", "--raft", "127.0.0.1:99999", "--api", "127.0.0.1:2",
        "--endpoints", endpoint);
    assertThat(badAddress.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(badAddress.err()).startsWith("error: --raft '127.0.0.1:99999' is invalid").doesNotContain("\n");

    Run badId = run("member", "transfer-leadership", "--to", "no/such", "--endpoints", endpoint);
    assertThat(badId.code()).isEqualTo(ExitCodes.USAGE);

    Run promoteVoter = run("member", "promote", "s1", "--endpoints", endpoint);
    assertThat(promoteVoter.code()).isEqualTo(ExitCodes.ERROR);
    assertThat(promoteVoter.err()).isEqualTo("error: FAILED_PRECONDITION: member s1 is already a voter");

    assertThat(run("member", "list", "--endpoints", endpoint).out()).isEqualTo(before);
  }
}
