package io.regent.etcdcompat;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.etcdcompat.Etcdctl.Run;
import java.io.IOException;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * etcd's own command line, {@code etcdctl} ({@link Etcdctl}), on Regent's etcd-compatible services of a 3-node
 * cluster: every lease command it has. Fails, never skips, without etcdctl.
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

  private static Run etcdctl(String... args) throws IOException, InterruptedException {
    return Etcdctl.run(dir, cluster.endpoints(), null, args);
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
