package io.regent.etcdcompat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.regent.etcdcompat.Etcdctl.Run;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code etcdctl watch} 3.4 ({@link Etcdctl}) on Regent's keyspace through a follower's etcd port (docs/migrating.md
 * "etcd's Watch"): a prefix watch from a past revision prints the puts and deletes since, in order, with their
 * previous values, then a put made while it runs. Keys under {@code ctl-watch/} (the module's cluster is shared).
 */
@ExtendWith(EtcdCompatCluster.Shared.class)
@Tag("cluster")
class EtcdctlWatchTest {
  private static final Pattern REVISION = Pattern.compile("\"revision\":(\\d+)");

  @TempDir
  static Path dir;
  static String follower;

  @BeforeAll
  static void start(EtcdCompatCluster shared) {
    follower = shared.followerEndpoint();
  }

  private static Run ok(String... args) throws IOException, InterruptedException {
    Run r = Etcdctl.run(dir, follower, null, args);
    assertThat(r.exit()).as(String.join(" ", args) + ": " + r.out()).isZero();
    return r;
  }

  @Test
  void aPrefixWatchFromAPastRevisionPrintsTheEventsSinceThenLiveOnes() throws Exception {
    Matcher m = REVISION.matcher(ok("put", "-w", "json", "ctl-watch/a", "1").out());
    assertThat(m.find()).isTrue();
    long from = Long.parseLong(m.group(1));
    ok("put", "ctl-watch/b", "2");
    ok("put", "ctl-watch-not/c", "outside the prefix");
    ok("put", "ctl-watch/a", "3");
    ok("del", "ctl-watch/b");
    try (Etcdctl.Started watch = Etcdctl.start(dir, follower, "watch", "--prefix", "--prev-kv", "--rev=" + from,
        "ctl-watch/")) {
      String past = String.join("\n", "PUT", "ctl-watch/a", "1", "PUT", "ctl-watch/b", "2",
          "PUT", "ctl-watch/a", "1", "ctl-watch/a", "3", "DELETE", "ctl-watch/b", "2", "ctl-watch/b", "");
      await().atMost(Duration.ofSeconds(Jetcd.WAIT_S)).until(() -> watch.output().contains(past));
      ok("put", "ctl-watch/live", "4");
      await().atMost(Duration.ofSeconds(Jetcd.WAIT_S))
          .until(() -> watch.output().contains(past + "\nPUT\nctl-watch/live\n4"));
      assertThat(watch.output()).doesNotContain("ctl-watch-not").doesNotContain("Error");
    }
  }
}
