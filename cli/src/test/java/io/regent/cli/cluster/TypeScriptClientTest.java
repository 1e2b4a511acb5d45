package io.regent.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.ledger.LedgerMode;
import io.regent.ledger.LedgerServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs clients/typescript's own tests ({@code npm test}: Node's test runner over fake nodes and over a real cluster)
 * in the package {@link TypeScriptClientBuild} built once per run for this class and {@link ClientInstallTest}
 * ({@code --ignore-scripts} skips {@code pretest}, the build it has had), against a real 3-node cluster of
 * {@code regent server} processes and a monotone ledger: leases, failover, locks, ownership groups (two members
 * share 4 partitions; after one leaves the other owns all 4, the moved ones with larger tokens; the same with
 * examples/group-worker.ts run twice at once), the fenced-ledger example through a holder paused past its TTL
 * (the next holder has a larger token, the paused one's write is refused), and an observer whose node is killed. Needs Node 20+
 * and npm on the PATH (.ci/run installs Debian's {@code nodejs npm} when node is missing) and the npm registry.
 * Its cluster is its own, not {@link SharedClusterUp}'s: the tests kill one of its nodes. The package's own test
 * fixture starts it and stops it ({@code startCluster} of {@code regent-client/testing}, through
 * test/with-cluster.js, with the {@code regent} on the PATH: {@link RegentScript}), so that its start-and-stop
 * path runs here at no extra cluster start; the test checks that it removed the cluster's directory after.
 */
@Timeout(300)
@Tag("cluster")
class TypeScriptClientTest {
  @TempDir
  Path dir;

  /** Runs {@code command} in {@code pkg}, its output in a file; kills it (and what it started) on timeout. */
  private String run(Path pkg, Map<String, String> env, long minutes, String... command) throws Exception {
    Path log = Files.createTempFile(dir, "npm-", ".log");
    ProcessBuilder pb = new ProcessBuilder(command).directory(pkg.toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    pb.environment().putAll(env);
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new AssertionError(command[0] + " not found: install Node 20+ and npm (apt-get install nodejs npm)", e);
    }
    boolean ended;
    try {
      ended = p.waitFor(minutes, TimeUnit.MINUTES);
    } finally {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
    String out = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(ended).as("%s still running after %d min:%n%s", List.of(command), minutes, out).isTrue();
    assertThat(p.exitValue()).as("%s:%n%s", List.of(command), out).isZero();
    return out;
  }

  @Test
  void theTypeScriptClientsTestsPassAgainstARealClusterAndLedger() throws Exception {
    Path pkg = TypeScriptClientBuild.get(dir).pkg();
    try (LedgerServer ledger = LedgerServer.start(0, dir.resolve("ledger"), LedgerMode.MONOTONE)) {
      // no REGENT_ENDPOINTS: the fixture starts the cluster (in this test's directory), the tests' files share it
      String out = run(pkg, Map.of("REGENT_ENDPOINTS", "", "REGENT_JAR", "", "REGENT_LEDGER",
          "127.0.0.1:" + ledger.port(), "PATH", RegentScript.writeIn(dir.resolve("bin")), "TMPDIR", dir.toString()), 4,
          "npm", "test", "--ignore-scripts");
      System.out.println(out);
      assertThat(out).contains("# fail 0").doesNotContain("# pass 0")
          .containsPattern("# cluster \\S+ started in \\d+ ms").containsPattern("# cluster stopped in \\d+ ms");
    } finally {
      RegentScript.stopLeftClusters(dir);
    }
    try (var left = Files.list(dir)) {
      assertThat(left.map(p -> p.getFileName().toString())).as("the fixture's cluster directory, once stopped")
          .noneMatch(name -> name.startsWith("regent-cluster-"));
    }
  }
}
