package io.regent.etcdcompat;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * etcd's own command line, {@code etcdctl} (Debian's etcd-client; {@code .ci/run} installs it), on Regent's
 * etcd-compatible services of a 3-node cluster: every lease command it has. Fails, never skips, without etcdctl.
 */
@ExtendWith(EtcdCompatCluster.Shared.class)
@Tag("cluster")
class EtcdctlTest {
  private static final Pattern GRANTED = Pattern.compile("lease ([0-9a-f]+) granted with TTL\\((\\d+)s\\)");

  @TempDir
  static Path dir;
  static EtcdCompatCluster cluster;

  @BeforeAll
  static void start(EtcdCompatCluster shared) throws Exception {
    cluster = shared;
  }

  /** etcdctl's output, stdout then stderr, and its exit code. */
  record Run(int exit, String out) {
  }

  private static Run etcdctl(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("etcdctl", "--endpoints=" + cluster.endpoints(),
        "--dial-timeout=10s", "--command-timeout=20s"));
    cmd.addAll(List.of(args));
    Path out = Files.createTempFile(dir, "etcdctl", ".out");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile());
    pb.environment().put("ETCDCTL_API", "3");
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new IllegalStateException("etcdctl is not installed: apt-get install etcd-client", e);
    }
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException("etcdctl " + String.join(" ", args) + " did not end in 60 s");
    }
    return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8).trim());
  }

  @Test
  void everyLeaseCommandOfEtcdctlWorks() throws Exception {
    Run grant = etcdctl("lease", "grant", "10");
    assertThat(grant.exit()).as(grant.out()).isZero();
    Matcher m = GRANTED.matcher(grant.out());
    assertThat(m.find()).as(grant.out()).isTrue();
    String id = m.group(1);
    assertThat(m.group(2)).isEqualTo("10");

    Run once = etcdctl("lease", "keep-alive", "--once", id);
    assertThat(once.out()).isEqualTo("lease " + id + " keepalived with TTL(10)");
    Run ttl = etcdctl("lease", "timetolive", id);
    assertThat(ttl.out()).matches("lease " + id + " granted with TTL\\(10s\\), remaining\\(\\d+s\\)");
    Run list = etcdctl("lease", "list");
    assertThat(list.exit()).isZero();
    assertThat(list.out()).startsWith("found ").contains(id);

    Run revoke = etcdctl("lease", "revoke", id);
    assertThat(revoke.out()).isEqualTo("lease " + id + " revoked");
    assertThat(etcdctl("lease", "timetolive", id).out()).isEqualTo("lease " + id + " already expired");
    Run again = etcdctl("lease", "revoke", id);
    assertThat(again.exit()).isNotZero();
    assertThat(again.out()).contains("requested lease not found");
  }

  @Test
  void aTtlBelowTheMinimumIsRaisedAndOneAboveTheMaximumRefused() throws Exception {
    assertThat(etcdctl("lease", "grant", "1").out()).matches("lease [0-9a-f]+ granted with TTL\\(2s\\)");
    Run big = etcdctl("lease", "grant", "100000");
    assertThat(big.exit()).isNotZero();
    assertThat(big.out()).contains("too large lease TTL");
  }
}
