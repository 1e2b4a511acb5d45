package io.regent.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.regent.client.RegentClient;
import io.regent.ledger.LedgerMode;
import io.regent.ledger.LedgerServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Installs the Java, Python and TypeScript clients as a team outside this repository would, and runs their examples
 * (a lock around a job, run twice at once; the fenced-ledger writer; two ownership-group workers at once) and a
 * team's own test on the package's test fixture against the module's shared 3-node cluster
 * ({@link SharedClusterUp}; names of its own) and a monotone ledger, and the lock examples again over mutual TLS
 * against the module's shared TLS cluster ({@link SharedTlsClusterUp}, the client certificate {@code admin} from
 * {@code $REGENT_CACERT}, {@code $REGENT_CERT}, {@code $REGENT_KEY}, as the CLI reads them):
 *
 * <ul>
 *   <li>the Java client ({@code regent-api}) from a file-based Maven repository into a throwaway Maven project,
 *       built offline ({@link JavaClientProject}), with the examples module's {@code LockedJob} and
 *       {@code GroupWorker};
 *   <li>the Python wheel ({@code pip wheel}) in a fresh virtual environment, with protobuf and grpcio from the
 *       package index pip is configured with (the current releases), and again in one that sees Debian's
 *       python3-protobuf and python3-grpcio, where pytest (Debian's) runs a team's test on the {@code
 *       regent_cluster} fixture the wheel registers (that wheel and environment are {@link PythonClientBuild}'s,
 *       made once per run for this class and PythonClientTest);
 *   <li>the tarball {@code npm pack} makes ({@link TypeScriptClientBuild}'s, packed once per run for this class
 *       and {@link TypeScriptClientTest}), installed with {@code npm install} into an empty folder outside the
 *       repository, its examples compiled there against the installed declarations, and a team's test on
 *       {@code regent-client/testing} run there with {@code node --test}.
 * </ul>
 *
 * <p>Where a registry (the Python package index, npm's) cannot be reached, the case is skipped, its reason saying
 * so, rather than passed. Each prints the versions it ran with. Needs python3 with venv and Debian's
 * python3-grpcio, python3-setuptools, Node 20+ and npm (.ci/run installs them).
 */
@Tag("cluster")
@Timeout(300)
@ExtendWith({SharedClusterUp.class, SharedTlsClusterUp.class})
class ClientInstallTest {
  private static final Path CLIENTS = Path.of("..", "clients").toAbsolutePath().normalize();
  private static final Pattern LOCKED = Pattern.compile("locked \\S+ token=(\\d+) at=(\\d+)");
  private static final Pattern UNLOCKED = Pattern.compile("unlocked \\S+ at=(\\d+)");

  @TempDir
  static Path dir;

  private static String endpoints;
  private static SharedTlsClusterUp.Tls tls;
  private static LedgerServer ledger;

  @BeforeAll
  static void join(ProcessCluster shared, SharedTlsClusterUp.Tls sharedTls) throws Exception {
    endpoints = shared.endpoints();
    tls = sharedTls;
    ledger = LedgerServer.start(0, dir.resolve("ledger"), LedgerMode.MONOTONE);
    awaitReady(RegentClient.connect(endpoints));
    awaitReady(RegentClient.builder().endpoints(List.of(tls.cluster().endpoints().split(","))).caCert(tls.ca())
        .clientCert(tls.cert(), tls.key()).build());
  }

  /** Waits until a leader is known and every node has published its API address (the clients route by it). */
  private static void awaitReady(RegentClient client) {
    try (client) {
      await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
        var s = client.cluster().status();
        return !s.getLeader().isEmpty() && s.getMembersList().stream().noneMatch(m -> m.getApiAddress().isEmpty());
      });
    }
  }

  @AfterAll
  static void stopLedger() throws InterruptedException {
    if (ledger != null) {
      ledger.close();
    }
  }

  @Test
  void theJavaClientFromAFileRepositoryRunsItsExampleInAThrowawayProject() throws Exception {
    Path work = Files.createDirectories(dir.resolve("java"));
    Path jar = JavaClientProject.build(work, List.of("LockedJob.java", "GroupWorker.java", "ClientArgs.java"));
    String main = "io.regent.examples.LockedJob";
    runTwiceAtOnce(work, work, Map.of(), JavaClientProject.java(jar, main, endpoints,
        SharedClusterUp.name("java-install-job"), "3"));
    runTwiceAtOnce(work, work, tls.env(), JavaClientProject.java(jar, main, tls.cluster().endpoints(),
        SharedClusterUp.name("java-install-tls-job"), "3"));
    runTwoGroupWorkers(work, work, SharedClusterUp.name("java-install-group"),
        JavaClientProject.java(jar, "io.regent.examples.GroupWorker", endpoints));
  }

  @Test
  void thePythonWheelRunsItsExamplesWithTheIndexsCurrentProtobufAndGrpcio() throws Exception {
    Path work = Files.createDirectories(dir.resolve("py-index"));
    Path venv = work.resolve("venv");
    // the interpreter a Python team would use: python3 on the PATH
    CommandRun.run(work, work, Map.of(), 120, "python3", "-m", "venv", venv.toString()).ok();
    String pip = venv.resolve("bin/pip").toString();
    CommandRun.Result reach = CommandRun.run(work, work, Map.of(), 120, pip, "download", "--no-deps", "--retries",
        "1", "-d", work.resolve("probe").toString(), "protobuf");
    skipUnless(reach.exit() == 0, "the Python package index is not reachable (pip download protobuf failed)", reach);
    Path wheel = wheel(work, pip);
    CommandRun.run(work, work, Map.of(), 180, pip, "install", "--retries", "1", wheel.toString()).ok();
    String versions = pythonVersions(work, venv);
    System.out.println("Python client from the index: " + versions);
    assertThat(Integer.parseInt(versions.replaceAll(".*protobuf (\\d+)\\..*", "$1")))
        .as("a current protobuf (the shipped modules must import on it): %s", versions).isGreaterThanOrEqualTo(5);
    runPythonExamples(work, venv, "py-index");
  }

  @Test
  void thePythonWheelRunsItsExamplesOnDebiansProtobufAndGrpcio() throws Exception {
    Path work = Files.createDirectories(dir.resolve("py-debian"));
    // the wheel installed from its file, once per run: PythonClientTest runs the package's tests in the same venv
    Path venv = PythonClientBuild.get(work).venv();
    String versions = pythonVersions(work, venv);
    System.out.println("Python client on Debian's packages: " + versions);
    assertThat(versions).as("protobuf and grpcio must be Debian's (python3-protobuf, python3-grpcio)")
        .contains("from /usr/lib/python3/dist-packages");
    runPythonExamples(work, venv, "py-debian");
    // a team's own test, with the fixture the installed package registers with pytest (Debian's python3-pytest)
    Path tests = Files.createDirectories(work.resolve("team-tests"));
    Files.writeString(tests.resolve("test_jobs.py"), """
        import regent_client

        def test_a_lock_on_the_fixtures_cluster(regent_cluster):
            with regent_client.connect(regent_cluster.endpoints) as client:
                with client.lock("%s", ttl=5.0) as lock:
                    assert lock.token > 0
        """.formatted(SharedClusterUp.name("py-fixture-job")));
    String out = CommandRun.run(tests, work, Map.of("REGENT_ENDPOINTS", endpoints, "PYTHONDONTWRITEBYTECODE", "1"),
        120, venv.resolve("bin/python").toString(), "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_jobs.py")
        .ok().output();
    assertThat(out).contains("1 passed");
  }

  @Test
  void theTypeScriptTarballRunsItsExamplesInAnEmptyFolder() throws Exception {
    Path work = Files.createDirectories(dir.resolve("ts"));
    CommandRun.Result reach = CommandRun.run(work, work, Map.of(), 60, "npm", "view", "@grpc/grpc-js", "version",
        "--fetch-retries=1", "--fetch-retry-mintimeout=1000", "--fetch-retry-maxtimeout=2000");
    skipUnless(reach.exit() == 0, "the npm registry is not reachable (npm view @grpc/grpc-js failed)", reach);
    // packed once per run (TypeScriptClientTest runs the package's tests in the same build); only read here
    TypeScriptClientBuild build = TypeScriptClientBuild.get(work);
    Path pkg = build.pkg();

    Path app = Files.createDirectories(work.resolve("app"));
    Files.writeString(app.resolve("package.json"), "{\"name\": \"a-team-service\", \"version\": \"1.0.0\"}\n");
    CommandRun.run(app, work, Map.of(), 180, "npm", "install", "--no-audit", "--no-fund", build.tarball().toString())
        .ok();
    for (String example : List.of("lock-job.ts", "ledger-writer.ts", "group-worker.ts")) {
      Files.copy(pkg.resolve("examples").resolve(example), app.resolve(example));
    }
    // compiled as a user's TypeScript is: against the installed package's declarations, not the sources
    CommandRun.run(app, work, Map.of(), 120, pkg.resolve("node_modules/.bin/tsc").toString(), "--strict",
        "--module", "commonjs", "--target", "es2022", "--types", "node", "--typeRoots",
        pkg.resolve("node_modules/@types").toString(), "--outDir", "out", "lock-job.ts", "ledger-writer.ts", "group-worker.ts").ok();
    String versions = CommandRun.run(app, work, Map.of(), 30, "node", "-p",
        "`node ${process.version}, @grpc/grpc-js ${require('@grpc/grpc-js/package.json').version}`").ok().output();
    System.out.println("TypeScript client from its tarball: " + versions.strip());

    runTwiceAtOnce(app, work, Map.of(), "node", "out/lock-job.js", endpoints, SharedClusterUp.name("ts-install-job"),
        "3");
    runTwiceAtOnce(app, work, tls.env(), "node", "out/lock-job.js", tls.cluster().endpoints(),
        SharedClusterUp.name("ts-install-tls-job"), "3");
    String writer = SharedClusterUp.name("ts-install-ledger");
    String out = CommandRun.run(app, work, Map.of(), 60, "node", "out/ledger-writer.js", endpoints,
        "127.0.0.1:" + ledger.port(), writer, "--count", "3", "--interval", "50").ok().output();
    assertThat(out).contains("elected " + writer).containsPattern("(?s)(admitted .*){3}");
    runTwoGroupWorkers(app, work, SharedClusterUp.name("ts-install-group"), "node", "out/group-worker.js", endpoints);
    // a team's own test, with the installed package's fixture (regent-client/testing)
    Files.writeString(app.resolve("jobs.test.js"), """
        const { test } = require('node:test');
        const assert = require('node:assert/strict');
        const { connect } = require('regent-client');
        const { startCluster } = require('regent-client/testing');

        test("a lock on the fixture's cluster", async () => {
          const cluster = await startCluster();
          try {
            const client = connect(cluster.endpoints);
            try {
              const lock = await client.lock('%s', { ttl: 5000 });
              assert.ok(lock.token > 0);
              await lock.resign();
            } finally {
              client.close();
            }
          } finally {
            await cluster.stop();
          }
        });
        """.formatted(SharedClusterUp.name("ts-fixture-job")));
    String tested = CommandRun.run(app, work, Map.of("REGENT_ENDPOINTS", endpoints), 120, "node", "--test",
        "jobs.test.js").ok().output();
    assertThat(tested).contains("# pass 1", "# fail 0");
  }

  /**
   * Builds the wheel from a copy of clients/python with {@code pip wheel} as pip builds by default: in an isolated
   * environment with setuptools from the package index; its path.
   */
  private static Path wheel(Path work, String pip) throws Exception {
    Path src = work.resolve("src");
    SourceTree.copy(CLIENTS.resolve("python"), src, Set.of("build", "dist", "gen"));
    CommandRun.run(work, work, Map.of(), 180, pip, "wheel", "--no-deps", "-w", work.resolve("dist").toString(),
        src.toString()).ok();
    return single(work.resolve("dist"), ".whl");
  }

  /** "protobuf V from DIR, grpcio V from DIR" of the venv's interpreter. */
  private static String pythonVersions(Path work, Path venv) throws Exception {
    return CommandRun.run(work, work, Map.of(), 60, venv.resolve("bin/python").toString(), "-c",
        "import os, google.protobuf as p, grpc as g; d = lambda m: os.path.dirname(os.path.dirname(m.__file__)); "
            + "print('protobuf %s from %s, grpcio %s from %s' % (p.__version__, d(p), g.__version__, d(g)))")
        .ok().output().strip();
  }

  /**
   * Runs examples/job_lock.py twice at once (on the plaintext cluster, then over mutual TLS) and
   * examples/ledger_writer.py, from outside any source tree.
   */
  private static void runPythonExamples(Path work, Path venv, String prefix) throws Exception {
    Path run = Files.createDirectories(work.resolve("run"));
    SourceTree.copy(CLIENTS.resolve("python/examples"), run.resolve("examples"), Set.of());
    String python = venv.resolve("bin/python").toString();
    runTwiceAtOnce(run, work, Map.of(), python, "examples/job_lock.py", endpoints,
        SharedClusterUp.name(prefix + "-job"), "3");
    runTwiceAtOnce(run, work, tls.env(), python, "examples/job_lock.py", tls.cluster().endpoints(),
        SharedClusterUp.name(prefix + "-tls-job"), "3");
    String writer = SharedClusterUp.name(prefix + "-ledger");
    String out = CommandRun.run(run, work, Map.of("PYTHONDONTWRITEBYTECODE", "1"), 60, python,
        "examples/ledger_writer.py", endpoints, "127.0.0.1:" + ledger.port(), writer, "3").ok().output();
    assertThat(out).contains("elected " + writer).containsPattern("(?s)(admitted .*){3}");
    runTwoGroupWorkers(run, work, SharedClusterUp.name(prefix + "-group"), python, "examples/group_worker.py",
        endpoints);
  }

  /**
   * Starts the group-worker example twice at once on one group of 4 partitions, as members a and b, 10 steps each:
   * both must run every step and leave, and at their first step own 2 partitions each, disjoint, together all 4,
   * each with a fencing token.
   */
  private static void runTwoGroupWorkers(Path cwd, Path work, String group, String... command) throws Exception {
    List<CommandRun> runs = new ArrayList<>();
    for (String member : List.of("a", "b")) {
      List<String> c = new ArrayList<>(List.of(command));
      c.addAll(List.of(group, member, "10", "--members", "2"));
      runs.add(CommandRun.start(cwd, work, Map.of("PYTHONDONTWRITEBYTECODE", "1"), c.toArray(String[]::new)));
    }
    Set<String> owned = new HashSet<>();
    for (CommandRun r : runs) {
      String out = r.finish(90).ok().output();
      assertThat(out).containsPattern("(?m)^joined " + group + " as [ab] lease=\\d+$")
          .containsPattern("(?m)^step 10 owns ").containsPattern("(?m)^left " + group + " at=\\d+$");
      Matcher first = Pattern.compile("(?m)^step 1 owns (.*)$").matcher(out);
      assertThat(first.find()).as("a first step in:%n%s", out).isTrue();
      String[] pairs = first.group(1).strip().split(",");
      assertThat(pairs).as("partitions at the first step of:%n%s", out).hasSize(2);
      for (String pair : pairs) {
        String[] pt = pair.split("=");
        assertThat(Long.parseLong(pt[1])).as("the token of partition " + pt[0]).isPositive();
        assertThat(owned.add(pt[0])).as("partition " + pt[0] + " owned by one member only").isTrue();
      }
    }
    assertThat(owned).containsExactlyInAnyOrder("0", "1", "2", "3");
  }

  /**
   * Starts the lock example twice on one name, with {@code tlsEnv} added to the environment; both must run all
   * their steps, one after the other: the second's hold starts after the first's ended, with a larger fencing token.
   */
  private static void runTwiceAtOnce(Path cwd, Path work, Map<String, String> tlsEnv, String... command)
      throws Exception {
    Map<String, String> env = new HashMap<>(tlsEnv);
    env.put("PYTHONDONTWRITEBYTECODE", "1");
    CommandRun a = CommandRun.start(cwd, work, env, command);
    CommandRun b = CommandRun.start(cwd, work, env, command);
    List<long[]> holds = new ArrayList<>();  // token, locked at, unlocked at
    for (CommandRun r : List.of(a, b)) {
      String out = r.finish(90).ok().output();
      assertThat(out).contains("step 3 token=");
      Matcher locked = LOCKED.matcher(out);
      Matcher unlocked = UNLOCKED.matcher(out);
      assertThat(locked.find() && unlocked.find()).as("lock and unlock lines in:%n%s", out).isTrue();
      holds.add(new long[] {Long.parseLong(locked.group(1)), Long.parseLong(locked.group(2)),
          Long.parseLong(unlocked.group(1))});
    }
    holds.sort((x, y) -> Long.compare(x[1], y[1]));
    long[] first = holds.get(0);
    long[] second = holds.get(1);
    assertThat(second[1]).as("the second holder locked only after the first unlocked").isGreaterThanOrEqualTo(first[2]);
    assertThat(second[0]).as("the later holder's fencing token").isGreaterThan(first[0]);
  }

  private static Path single(Path folder, String suffix) throws IOException {
    try (var files = Files.list(folder)) {
      List<Path> found = files.filter(p -> p.toString().endsWith(suffix)).toList();
      assertThat(found).as("one %s in %s", suffix, folder).hasSize(1);
      return found.get(0);
    }
  }

  /**
   * Skips the calling test unless {@code reachable}: the reason (and the probe's last lines) on standard output,
   * where the build log shows it, and as the skip's reason in the test report. Never a silent pass.
   */
  private static void skipUnless(boolean reachable, String why, CommandRun.Result probe) {
    if (!reachable) {
      String[] lines = probe.output().strip().split("\n");
      String reason = "SKIPPED, NOT PASSED: " + why + ":\n"
          + String.join("\n", List.of(lines).subList(Math.max(0, lines.length - 3), lines.length));
      System.out.println(reason);
      Assumptions.abort(reason);
    }
  }
}
