package io.regent.cli.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.regent.cli.cluster.ProcessCluster;
import io.regent.cli.cluster.SharedClusterUp;
import io.regent.cli.cluster.SourceTree;
import io.regent.client.RegentClient;
import io.regent.ledger.LedgerMode;
import io.regent.ledger.LedgerServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Installs clients/python as a user would ({@code pip install}, into a virtual environment that sees Debian's
 * grpc) and runs its own tests with that installation (test_regent_client.py: elect with its keepalive thread,
 * step-down, failover, routing, streamed keepalives, the ledger example; test_recipes.py: lock contention,
 * suspension, proclaim, observe resuming after its stream is cut; test_aio.py: the same verbs on the asyncio
 * client; test_groups.py: ownership groups, two members sharing 4 partitions, thread and asyncio) against a real
 * 3-node cluster (the module's shared {@code cluster up}, {@link SharedClusterUp}: the Python tests use names of
 * their own, all starting with {@code py-}, and stop no node; a cut stream is a TCP forwarder's, tcp_proxy.py) and
 * ledger; first checks that the shipped gRPC modules match the proto (generate.sh,
 * with the protoc the api module's build fetched: system property {@code regent.protoc}, set by this module's pom)
 * and that the package's type hints pass mypy. Needs Debian's python3-grpcio, python3-grpc-tools, python3-venv,
 * python3-setuptools and python3-mypy (.ci/run installs them).
 */
@Tag("cluster")
@ExtendWith(SharedClusterUp.class)
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

  /**
   * Runs {@code command} to its end, at most 3 minutes: its output goes to a file, not a pipe read to its end first,
   * so a script that hangs is stopped (with its children) and fails the test instead of holding it for ever.
   */
  private String run(Path cwd, Map<String, String> env, String... command) throws Exception {
    Path log = Files.createTempFile(dir, "run", ".log");
    ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    pb.environment().putAll(env);
    Process p = pb.start();
    boolean ended = p.waitFor(3, TimeUnit.MINUTES);
    if (!ended) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly().waitFor();
    }
    String out = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(ended).as("%s still running after 3 minutes:%n%s", List.of(command), out).isTrue();
    assertThat(p.exitValue()).as("%s:%n%s", List.of(command), out).isZero();
    return out;
  }

  @Test
  void thePythonClientsTestsPassAgainstARealNodeAndLedger(ProcessCluster cluster) throws Exception {
    String python = python();
    Path gen = dir.resolve("gen");
    run(CLIENT, Map.of("PYTHON", python, "PROTOC", System.getProperty("regent.protoc")), "sh", "generate.sh",
        gen.toString());
    for (String module : List.of("regent_pb2.py", "regent_pb2.pyi", "regent_pb2_grpc.py", "group_pb2.py",
        "group_pb2.pyi", "group_pb2_grpc.py")) {
      assertThat(Files.readString(CLIENT.resolve("regent_client/v1/" + module)))
          .as("clients/python/regent_client/v1/%s is older than the proto: run clients/python/generate.sh", module)
          .isEqualTo(Files.readString(gen.resolve("regent_client/v1/" + module)));
    }
    // pip builds in the source directory: install from a copy, so the tree stays clean
    Path src = dir.resolve("src");
    SourceTree.copy(CLIENT, src, Set.of("build", "gen"));
    // the package ships py.typed: its type hints must hold (pyproject.toml's [tool.mypy])
    assertThat(run(src, Map.of(), python, "-m", "mypy")).contains("Success: no issues found");
    Path venv = dir.resolve("venv");
    run(dir, Map.of(), python, "-m", "venv", "--system-site-packages", venv.toString());
    run(dir, Map.of(), venv.resolve("bin/pip").toString(), "install", "-q", "--no-build-isolation", "--no-index",
        src.toString());
    // the tests run beside neither the sources nor the copy: they import the installed package
    Path tests = dir.resolve("run");
    SourceTree.copy(CLIENT.resolve("examples"), tests.resolve("examples"), Set.of());
    for (String script : List.of("test_regent_client.py", "test_recipes.py", "test_aio.py", "test_groups.py",
        "tcp_proxy.py")) {
      Files.copy(CLIENT.resolve(script), tests.resolve(script));
    }
    // Three nodes, so that routing to the leader is something the client must learn.
    String endpoints = cluster.endpoints();
    try (LedgerServer ledger = LedgerServer.start(0, dir.resolve("ledger"), LedgerMode.MONOTONE);
         RegentClient client = RegentClient.connect(endpoints)) {
      // ready once a leader is known and every node has published its API address
      await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
        var s = client.cluster().status();
        return !s.getLeader().isEmpty() && s.getMembersList().stream().noneMatch(m -> m.getApiAddress().isEmpty());
      });
      String py = venv.resolve("bin/python").toString();
      Map<String, String> env = Map.of("PYTHONDONTWRITEBYTECODE", "1");
      assertThat(run(tests, env, py, "test_regent_client.py", endpoints, "127.0.0.1:" + ledger.port()))
          .contains("OK").doesNotContain("FAILED");
      for (String script : List.of("test_recipes.py", "test_aio.py", "test_groups.py")) {
        assertThat(run(tests, env, py, script, endpoints)).as(script).contains("OK").doesNotContain("FAILED");
      }
    }
  }
}
