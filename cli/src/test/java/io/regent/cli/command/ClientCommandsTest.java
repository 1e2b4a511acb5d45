package io.regent.cli.command;

import static io.regent.cli.command.SnapshotCommandTest.freePort;
import static io.regent.cli.command.SnapshotCommandTest.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.ByteString;
import io.regent.api.v1.LeaderKey;
import io.regent.cli.cluster.Launcher;
import io.regent.cli.command.SnapshotCommandTest.Run;
import io.regent.cli.output.ExitCodes;
import io.regent.client.RegentClient;
import io.regent.process.ChildProcess;
import io.regent.server.RegentServer;
import io.regent.server.config.ServerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The etcdctl habits, as a user types them against a one-node cluster: endpoint health and status, version,
 * completion, lock and elect with --timeout / --no-wait, and lock without a command held until SIGTERM.
 */
@Tag("cluster")
class ClientCommandsTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir
  Path dir;
  RegentServer node;
  String endpoint;
  RegentClient client;

  @BeforeEach
  void start() throws Exception {
    int apiPort = freePort();
    endpoint = "127.0.0.1:" + apiPort;
    node = RegentServer.start(ServerConfig.of("s1", Map.of("s1", "127.0.0.1:" + freePort()), apiPort,
        dir.resolve("s1")));
    client = RegentClient.connect(endpoint);
    await().atMost(WAIT).until(() -> run("status", "--endpoints", endpoint).code() == 0);
  }

  @AfterEach
  void stop() throws Exception {
    client.close();
    node.close();
  }

  @Test
  void endpointHealthSaysWhichEndpointAnswersAndExitsFiveWhenOneDoesNot() {
    Run ok = run("endpoint", "health", "--endpoints", endpoint);
    assertThat(ok.code()).as(ok.err()).isZero();
    assertThat(ok.out()).matches("127\\.0\\.0\\.1:\\d+ is healthy: took \\d+ ms");

    Run mixed = run("endpoint", "health", "--endpoints", endpoint + ",127.0.0.1:1", "-w", "json",
        "--dial-timeout", "500ms", "--command-timeout", "2s");
    assertThat(mixed.code()).isEqualTo(ExitCodes.UNAVAILABLE);
    List<String> lines = mixed.out().lines().toList();
    assertThat(lines).hasSize(2);
    assertThat(JsonParser.parseString(lines.get(0)).getAsJsonObject().get("health").getAsBoolean()).isTrue();
    JsonObject down = JsonParser.parseString(lines.get(1)).getAsJsonObject();
    assertThat(down.get("endpoint").getAsString()).isEqualTo("127.0.0.1:1");
    assertThat(down.get("health").getAsBoolean()).isFalse();
    assertThat(down.get("error").getAsString()).startsWith("UNAVAILABLE");

    Run table = run("endpoint", "health", "--endpoints", endpoint, "-w", "table");
    assertThat(table.out().lines().toList()).hasSize(2).first().asString().startsWith("ENDPOINT").contains("HEALTH");
  }

  @Test
  void endpointStatusReportsVersionRoleTermIndexesAndStateSize() {
    Run json = run("endpoint", "status", "--endpoints", endpoint, "-w", "json");
    assertThat(json.code()).as(json.err()).isZero();
    JsonObject s = JsonParser.parseString(json.out()).getAsJsonObject();
    assertThat(s.get("node").getAsString()).isEqualTo("s1");
    assertThat(s.get("version").getAsString()).isNotEmpty();
    assertThat(s.get("role").getAsString()).isEqualTo("LEADER");
    assertThat(s.get("term").getAsLong()).isPositive();
    assertThat(s.get("applied_index").getAsLong()).isPositive();
    assertThat(s.get("db_size_bytes").getAsLong()).isPositive();

    Run table = run("endpoint", "status", "--endpoints", endpoint, "-w", "table");
    assertThat(table.out().lines().toList()).hasSize(2).first().asString()
        .contains("VERSION").contains("ROLE").contains("APPLIED").contains("DB SIZE");

    Run unreachable = run("endpoint", "status", "--endpoints", "127.0.0.1:1", "--dial-timeout", "500ms");
    assertThat(unreachable.code()).isEqualTo(ExitCodes.UNAVAILABLE);
    assertThat(unreachable.err()).startsWith("error: 127.0.0.1:1: UNAVAILABLE").doesNotContain("\n");
  }

  @Test
  void versionShowsClientAndServer() {
    Run v = run("version", "--endpoints", endpoint);
    assertThat(v.code()).as(v.err()).isZero();
    assertThat(v.out().lines().toList()).satisfiesExactly(
        l -> assertThat(l).startsWith("client "),
        l -> assertThat(l).startsWith("server ").endsWith("(node s1)"));
  }

  @Test
  void completionPrintsAScriptForBashAndZshAndRefusesOtherShells() {
    Run bash = run("completion", "bash");
    assertThat(bash.code()).isZero();
    assertThat(bash.out()).contains("complete -F").contains("endpoint").contains("--dial-timeout");
    Run zsh = run("completion", "zsh");
    assertThat(zsh.out()).startsWith("autoload -U +X compinit").contains("bashcompinit").contains("complete -F");
    Run fish = run("completion", "fish");
    assertThat(fish.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(fish.err()).startsWith("error: ").doesNotContain("\n");
  }

  @Test
  void lockAndElectGiveUpWithExitThreeWhenTheNameIsHeldAndLeaveNothingBehind() {
    long lease = client.leases().grant(30_000);
    LeaderKey held = client.elections().campaign("jobs", lease, ByteString.copyFromUtf8("other"));
    int leases = client.leases().list().size();

    Run lock = run("lock", "jobs", "--timeout", "300ms", "--endpoints", endpoint, "--", "true");
    assertThat(lock.code()).isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(lock.err()).isEqualTo("error: jobs not granted within 300 ms");

    Run elect = run("elect", "jobs", "b", "--no-wait", "--endpoints", endpoint);
    assertThat(elect.code()).isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(elect.err()).isEqualTo("error: not elected: jobs is held (token=" + held.getToken() + " value=other)");

    Run electTimeout = run("elect", "jobs", "b", "--timeout", "0.3s", "--endpoints", endpoint);
    assertThat(electTimeout.code()).isEqualTo(ExitCodes.NOT_FOUND);

    assertThat(client.elections().leader("jobs")).contains(held);
    await().atMost(WAIT).until(() -> client.leases().list().size() == leases); // the commands' leases are revoked
  }

  @Test
  void lockStartedWhileNoNodeAnswersKeepsTryingUntilItsTimeoutThenExitsFive() {
    long start = System.nanoTime();
    Run lock = run("lock", "jobs", "--timeout", "2s", "--endpoints", "127.0.0.1:1", "--dial-timeout", "200ms",
        "--", "true");
    assertThat(lock.code()).isEqualTo(ExitCodes.UNAVAILABLE);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
    assertThat(lock.err()).startsWith("no node answers yet (").contains("trying until --timeout");
  }

  @Test
  void lockStartedBeforeItsNodeKeepsTryingAndLocksOnceTheNodeAnswers() throws Exception {
    int apiPort = freePort();
    List<String> cmd = new java.util.ArrayList<>(Launcher.javaCommand(Launcher.CLIENT_JVM));
    cmd.addAll(List.of("lock", "late", "--timeout", "60s", "--endpoints", "127.0.0.1:" + apiPort, "--", "true"));
    try (ChildProcess lock = ChildProcess.builder("lock", cmd).captureOutput(line -> { }).start()) {
      lock.awaitLine(l -> l.startsWith("no node answers yet"), WAIT);
      try (RegentServer late = RegentServer.start(ServerConfig.of("s2", Map.of("s2", "127.0.0.1:" + freePort()),
          apiPort, dir.resolve("s2")))) {
        lock.awaitLine(l -> l.startsWith("locked late "), WAIT);
        assertThat(lock.awaitExit(WAIT)).isZero();
      }
    }
  }

  @Test
  void leaderPrintsTheIndexItsAnswerReflectsAlsoWhenSerializable() {
    LeaderKey held = client.elections().campaign("jobs", client.leases().grant(60_000), ByteString.copyFromUtf8("a"));
    assertReflectsTheGrant(run("leader", "jobs", "--serializable", "-w", "json", "--endpoints", endpoint), held);
    assertReflectsTheGrant(run("leader", "jobs", "-w", "json", "--endpoints", endpoint), held);
  }

  private void assertReflectsTheGrant(Run r, LeaderKey held) {
    assertThat(r.code()).as(r.err()).isZero();
    JsonObject j = JsonParser.parseString(r.out()).getAsJsonObject();
    assertThat(j.get("token").getAsLong()).isEqualTo(held.getToken());
    // read from state that had applied the grant, and nothing the node has not applied yet
    assertThat(j.get("index").getAsLong()).isBetween(held.getToken(), client.cluster().status(true).getAppliedIndex());
  }

  @Test
  void lockWithoutACommandHoldsUntilSigtermThenReleases() throws Exception {
    List<String> cmd = new java.util.ArrayList<>(Launcher.javaCommand(Launcher.CLIENT_JVM));
    cmd.addAll(List.of("lock", "backups", "--ttl", "1m30s", "--endpoints", endpoint));
    try (ChildProcess lock = ChildProcess.builder("lock", cmd).captureOutput(line -> { }).start()) {
      String locked = lock.awaitLine(l -> l.startsWith("locked backups "), WAIT);
      LeaderKey key = client.elections().leader("backups").orElseThrow();
      assertThat(locked).contains("token=" + key.getToken());
      assertThat(client.leases().timeToLive(key.getLease()).getTtlMs()).isEqualTo(90_000);
      assertThat(lock.terminate(WAIT)).isZero();
      assertThat(client.elections().leader("backups")).isEmpty();
    }
  }
}
