package io.regent.cli.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.regent.cli.cluster.ProcessCluster;
import io.regent.cli.cluster.PythonClientBuild;
import io.regent.cli.cluster.RegentScript;
import io.regent.cli.cluster.SharedClusterUp;
import io.regent.cli.cluster.SourceTree;
import io.regent.client.RegentClient;
import io.regent.ledger.LedgerMode;
import io.regent.ledger.LedgerServer;
import io.regent.process.ProcessExit;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Installs clients/python as a user would (its wheel, with {@code pip install}, into a virtual environment that sees
 * Debian's grpc: {@link PythonClientBuild}'s, made once per run for this class and ClientInstallTest) and runs its own
 * tests with that installation (test_regent_client.py: elect with its keepalive thread, step-down, failover, routing,
 * streamed keepalives, the ledger example; test_recipes.py: lock contention, suspension, proclaim, observe resuming
 * after its stream is cut; test_aio.py: the same verbs on the asyncio client; test_groups.py: ownership groups, two
 * members sharing 4 partitions, thread and asyncio; test_group_worker.py: examples/group_worker.py twice at once,
 * splitting 4 partitions; test_group_suspension.py: a suspending member, thread and asyncio, whose keepalives a paused
 * TCP forwarder holds, resuming, or stepping down once its lease expired) against a real 3-node cluster (the module's
 * shared {@code cluster up},
 * {@link SharedClusterUp}, given to the scripts' fixture,
 * regent_client.testing, as {@code REGENT_ENDPOINTS}: the Python tests use names of their own, all starting with
 * {@code py-}, and stop no node; a cut stream is a TCP forwarder's, tcp_proxy.py) and ledger; first checks that
 * the shipped gRPC modules match the proto (generate.sh, with the protoc the api module's build fetched: system
 * property {@code regent.protoc}, set by this module's pom) and that the package's type hints pass mypy. Last,
 * the pytest fixture regent_cluster starts a cluster of its own and stops it (test_testing.py): the one cluster
 * start the clients' fixtures cost (it prints its seconds: 22 s on this 2-core machine while other builds ran).
 * Needs Debian's python3-grpcio, python3-grpc-tools, python3-venv, python3-setuptools, python3-mypy and
 * python3-pytest (.ci/run installs them).
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
        Process p = new ProcessBuilder(candidate, "-c", "import grpc, grpc_tools, pytest").redirectErrorStream(true)
            .start();
        if (p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0) {
          return candidate;
        }
      } catch (IOException e) {
        // not there: try the next one
      }
    }
    throw new AssertionError("no python3 with grpc, grpc_tools and pytest: apt-get install python3-grpcio "
        + "python3-grpc-tools python3-pytest");
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
    // mypy writes its cache beside the sources: check a copy, so the tree stays clean
    Path src = dir.resolve("src");
    SourceTree.copy(CLIENT, src, Set.of("build", "gen"));
    // the package ships py.typed: its type hints must hold (pyproject.toml's [tool.mypy])
    assertThat(run(src, Map.of(), python, "-m", "mypy")).contains("Success: no issues found");
    // the wheel installed in a venv that sees Debian's grpc, once per run (ClientInstallTest's Debian case uses it)
    Path venv = PythonClientBuild.get(dir).venv();
    // the tests run beside neither the sources nor the copy: they import the installed package
    Path tests = dir.resolve("run");
    SourceTree.copy(CLIENT.resolve("examples"), tests.resolve("examples"), Set.of());
    for (String script : List.of("test_regent_client.py", "test_recipes.py", "test_aio.py", "test_groups.py",
        "test_group_worker.py", "test_group_suspension.py", "test_testing.py", "tcp_proxy.py")) {
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
      // the scripts' fixture uses the shared cluster: it starts none
      Map<String, String> env = Map.of("PYTHONDONTWRITEBYTECODE", "1", "REGENT_ENDPOINTS", endpoints);
      assertThat(run(tests, env, py, "test_regent_client.py", "127.0.0.1:" + ledger.port()))
          .contains("OK").doesNotContain("FAILED");
      for (String script : List.of("test_recipes.py", "test_aio.py", "test_groups.py", "test_group_worker.py",
          "test_group_suspension.py")) {
        assertThat(run(tests, env, py, script)).as(script).contains("OK").doesNotContain("FAILED");
      }
    }
    theFixtureStartsAClusterAndStopsIt(tests, venv.resolve("bin/python").toString());
  }

  /**
   * pytest's regent_cluster fixture without {@code REGENT_ENDPOINTS}: it starts a 3-node cluster with the
   * {@code regent} on the PATH ({@link RegentScript}), test_testing.py uses it, and once pytest has ended its nodes
   * are gone and its directory removed. Prints the seconds it took (the cluster start and stop it costs).
   */
  private void theFixtureStartsAClusterAndStopsIt(Path tests, String py) throws Exception {
    Path report = dir.resolve("fixture-report");
    Map<String, String> env = new HashMap<>(Map.of("PYTHONDONTWRITEBYTECODE", "1", "REGENT_FIXTURE_REPORT",
        report.toString(), "PATH", RegentScript.writeIn(dir.resolve("bin"))));
    env.put("REGENT_ENDPOINTS", ""); // as if unset: the fixture starts a cluster, with the regent on the PATH
    env.put("REGENT_JAR", "");
    Path tmp = Files.createDirectories(dir.resolve("fixture-tmp"));
    env.put("TMPDIR", tmp.toString()); // where the fixture makes its cluster's directory
    long started = System.nanoTime();
    try {
      assertThat(run(tests, env, py, "-m", "pytest", "-v", "-p", "no:cacheprovider", "test_testing.py"))
          .contains("2 passed");
    } finally {
      RegentScript.stopLeftClusters(tmp);
    }
    System.out.printf("the pytest fixture started and stopped a cluster in %.1f s%n",
        (System.nanoTime() - started) / 1e9);
    List<String> lines = Files.readAllLines(report);
    assertThat(Path.of(lines.get(0))).as("the fixture's cluster directory, once stopped").doesNotExist();
    for (String pid : lines.subList(1, lines.size())) {
      // ended (gone, or a zombie that the machine's init has yet to reap): `cluster down` waited for it
      assertThat(ProcessHandle.of(Long.parseLong(pid)).map(ProcessExit::ended).orElse(true))
          .as("node process %s has ended once the fixture stopped", pid).isTrue();
    }
  }
}
