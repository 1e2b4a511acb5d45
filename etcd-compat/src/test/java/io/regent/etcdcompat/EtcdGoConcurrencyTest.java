package io.regent.etcdcompat;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Go's etcd client recipes, {@code clientv3/concurrency} of etcd 3.4 (Debian's {@code golang-etcd-server-dev},
 * built offline by Debian's {@code golang-go} in GOPATH mode; {@code .ci/run} installs both), through a follower's
 * etcd port: {@code src/test/go/concurrency} takes a {@code NewMutex} with one session, has a second wait for it
 * and take it after {@code Unlock}, each printing its fencing token (its key's {@code create_revision},
 * docs/migrating.md), then has two {@code NewElection} candidates take turns through {@code Campaign}, {@code
 * Leader} and {@code Resign}. Skipped, visibly ("SKIPPED, NOT PASSED"), where there is no {@code go} or no etcd
 * client sources; where both are there, a build failure fails.
 */
@ExtendWith(EtcdCompatCluster.Shared.class)
@Tag("cluster")
class EtcdGoConcurrencyTest {
  private static final Path PROGRAM = Path.of("src/test/go/concurrency");
  /** Where Debian's golang-*-dev packages put their sources (a GOPATH). */
  private static final Path GOPATH = Path.of("/usr/share/gocode");
  private static final Path CONCURRENCY = GOPATH.resolve("src/go.etcd.io/etcd/clientv3/concurrency");
  private static final Pattern TOKEN = Pattern.compile("fencing token (\\d+)");

  @TempDir
  static Path dir;
  static String follower;

  @BeforeAll
  static void start(EtcdCompatCluster shared) {
    follower = shared.followerEndpoint();
  }

  private record Run(int exit, String out) {
  }

  /** Runs {@code command} with the Go environment of a GOPATH build, for at most 180 s; output and error merged. */
  private static Run run(List<String> command) throws IOException, InterruptedException {
    Path out = Files.createTempFile(dir, "go", ".out");
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
    Map<String, String> env = pb.environment();
    env.put("GOPATH", GOPATH.toString());
    env.put("GO111MODULE", "off"); // Debian's sources are a GOPATH tree, with no module proxy to reach
    env.put("GOFLAGS", "");
    env.put("GOCACHE", Path.of("target/go-build-cache").toAbsolutePath().toString()); // kept across runs
    Process p = pb.start();
    if (!p.waitFor(180, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor();
      throw new IllegalStateException(command + " did not end in 180 s:\n" + Files.readString(out));
    }
    return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
  }

  private static void skipIf(boolean cannot, String why) {
    if (cannot) {
      String reason = "SKIPPED, NOT PASSED: " + why;
      System.out.println(reason);
      Assumptions.abort(reason);
    }
  }

  private static Path build() throws Exception {
    Run version;
    try {
      version = run(List.of("go", "version"));
    } catch (IOException e) {
      version = new Run(-1, e.getMessage());
    }
    skipIf(version.exit() != 0, "no Go toolchain (apt-get install golang-go): " + version.out().strip());
    skipIf(!Files.isDirectory(CONCURRENCY), "no etcd Go client sources at " + CONCURRENCY
        + " (apt-get install golang-etcd-server-dev)");
    Path binary = dir.resolve("concurrency");
    Run build = run(List.of("go", "build", "-o", binary.toString(), "./" + PROGRAM));
    assertThat(build.exit()).as("go build with %s:\n%s", version.out().strip(), build.out()).isZero();
    return binary;
  }

  @Test
  void goMutexAndElectionTakeTurnsWithGrowingFencingTokens() throws Exception {
    Path binary = build();
    Run r = run(List.of(binary.toString(), follower, "go-concurrency/"));
    System.out.println(r.out()); // the tokens, in the test's report
    assertThat(r.exit()).as(r.out()).isZero();
    List<String> lines = r.out().lines().toList();
    assertThat(lines).as(r.out()).hasSize(7);
    assertThat(lines.get(0)).startsWith("mutex first holds, fencing token ");
    assertThat(lines.get(1)).isEqualTo("mutex second waits while the first holds");
    assertThat(lines.get(2)).startsWith("mutex second holds after unlock, fencing token ");
    assertThat(token(lines.get(2))).as("the second holder's token").isGreaterThan(token(lines.get(0)));
    assertThat(lines.subList(3, 7)).containsExactly("election leader a", "election second waits, leader still a",
        "election leader b after resign", "ok");
  }

  private static long token(String line) {
    Matcher m = TOKEN.matcher(line);
    assertThat(m.find()).as(line).isTrue();
    return Long.parseLong(m.group(1));
  }
}
