package io.regent.cli;

import static io.regent.cli.SnapshotCommandTest.freePort;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.regent.client.RegentClient;
import io.regent.server.RegentServer;
import io.regent.server.config.ServerConfig;
import io.regent.server.ledger.LedgerMode;
import io.regent.server.ledger.LedgerServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs clients/python's own tests (test_regent_client.py: elect with its keepalive thread, step-down, failover,
 * the ledger example) against a real node and ledger, after generating the gRPC modules from the proto. Needs
 * Debian's python3-grpcio and python3-grpc-tools (.ci/run installs them).
 */
class PythonClientTest {
  private static final Path CLIENT = Path.of("..", "clients", "python").toAbsolutePath().normalize();

  @TempDir
  Path dir;

  /** The system Python with grpc (Debian's packages install for /usr/bin/python3, not for a pyenv shim). */
  private static String python() throws Exception {
    for (String candidate : List.of("/usr/bin/python3", "python3")) {
      try {
        Process p = new ProcessBuilder(candidate, "-c", "import grpc, grpc_tools").redirectErrorStream(true).start();
        if (p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0) {
          return candidate;
        }
      } catch (IOException e) {
        // not there: try the next one
      }
    }
    throw new AssertionError("no python3 with grpc and grpc_tools: apt-get install python3-grpcio python3-grpc-tools");
  }

  private static String run(Path cwd, Map<String, String> env, String... command) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(true);
    pb.environment().putAll(env);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(3, TimeUnit.MINUTES)).as("%s still running", List.of(command)).isTrue();
    assertThat(p.exitValue()).as("%s:%n%s", List.of(command), out).isZero();
    return out;
  }

  @Test
  void thePythonClientsTestsPassAgainstARealNodeAndLedger() throws Exception {
    String python = python();
    Path gen = dir.resolve("gen");
    run(CLIENT, Map.of("PYTHON", python), "sh", "generate.sh", gen.toString());
    assertThat(Files.exists(gen.resolve("regent/v1/regent_pb2_grpc.py"))).isTrue();
    // Three nodes, so that routing to the leader is something the client must learn.
    Map<String, String> peers = new java.util.LinkedHashMap<>();
    List<Integer> apis = new java.util.ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      peers.put("p" + i, "127.0.0.1:" + freePort());
      apis.add(freePort());
    }
    String endpoints = String.join(",", apis.stream().map(p -> "127.0.0.1:" + p).toList());
    List<RegentServer> nodes = new java.util.ArrayList<>();
    try (LedgerServer ledger = LedgerServer.start(0, dir.resolve("ledger"), LedgerMode.MONOTONE);
         RegentClient client = RegentClient.connect(endpoints)) {
      for (int i = 1; i <= 3; i++) {
        nodes.add(RegentServer.start(ServerConfig.of("p" + i, peers, apis.get(i - 1), dir.resolve("p" + i))));
      }
      // ready once a leader is known and every node has published its API address
      await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
        var s = client.status();
        return !s.getLeader().isEmpty() && s.getMembersList().stream().noneMatch(m -> m.getApiAddress().isEmpty());
      });
      String out = run(CLIENT, Map.of("PYTHONPATH", gen + ":" + CLIENT, "PYTHONDONTWRITEBYTECODE", "1"), python,
          "test_regent_client.py", endpoints, "127.0.0.1:" + ledger.port());
      assertThat(out).contains("OK").doesNotContain("FAILED");
    } finally {
      for (RegentServer n : nodes) {
        n.close();
      }
    }
  }
}
