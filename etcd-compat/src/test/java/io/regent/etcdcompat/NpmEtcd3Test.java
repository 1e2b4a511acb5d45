package io.regent.etcdcompat;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The npm {@code etcd3} package (its version pinned by {@code src/test/node/package-lock.json}) through a follower's
 * etcd port ({@code src/test/node/recipes.js}): two candidates' {@code election().campaign()}, the second waiting
 * while the first leads and elected once it resigns, an {@code observe()} that sees both in turn, and
 * {@code lock()} refused to a second client while held and taken once released. The project is copied to a
 * temporary folder and installed with {@code npm ci}, as the TypeScript client's test installs its own; needs Node
 * and npm ({@code .ci/run} installs Debian's when node is missing) and the npm registry. Fails, never skips.
 */
@ExtendWith(EtcdCompatCluster.Shared.class)
@Tag("cluster")
class NpmEtcd3Test {
  private static final Path PROJECT = Path.of("src/test/node");

  @TempDir
  static Path dir;
  static String follower;

  @BeforeAll
  static void start(EtcdCompatCluster shared) {
    follower = shared.followerEndpoint();
  }

  /** Runs {@code command} in {@code dir}; kills it and what it started after {@code minutes}. Its output. */
  private static String run(Path in, long minutes, String... command) throws Exception {
    Path log = Files.createTempFile(dir, "npm-", ".log");
    ProcessBuilder pb = new ProcessBuilder(command).directory(in.toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile());
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
  void electionObserveAndLockOfTheNpmEtcd3Package() throws Exception {
    Path project = Files.createDirectory(dir.resolve("project"));
    for (String f : List.of("package.json", "package-lock.json", "recipes.js")) {
      Files.copy(PROJECT.resolve(f), project.resolve(f));
    }
    run(project, 3, "npm", "ci", "--no-audit", "--no-fund");
    String out = run(project, 2, "node", "recipes.js", follower, "npm-etcd3/");
    assertThat(out.lines().toList()).as(out).containsExactly("a elected", "b waits while a leads",
        "b elected after a resigned", "observer saw a then b", "first locked", "second refused while held",
        "second locked after release", "ok");
  }
}
