package io.regent.etcdcompat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.regent.etcdcompat.Etcdctl.Run;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Go's {@code concurrency} recipes, over KV and Watch, as {@code etcdctl} 3.4 runs them through a follower's etcd
 * port (docs/migrating.md "etcd's Watch"). Two {@code etcdctl lock} contenders on one name: {@code Mutex} queues
 * the second behind the first's key by KV and waits for that key's DELETE by Watch, so the second runs its command
 * only after the first's has ended; the first holds until the test opens a named pipe it reads (a latch, not a
 * pause). Two {@code etcdctl elect} candidates and an {@code elect -l} observer: the second leads once the first
 * has stopped, and the observer sees both. Keys under {@code ctl-turns/} and {@code ctl-elect/}.
 */
@ExtendWith(EtcdCompatCluster.Shared.class)
@Tag("cluster")
class EtcdctlRecipesTest {
  @TempDir
  static Path dir;
  static String follower;

  @BeforeAll
  static void start(EtcdCompatCluster shared) {
    follower = shared.followerEndpoint();
  }

  private static long keys(String prefix) throws IOException, InterruptedException {
    Run r = Etcdctl.run(dir, follower, null, "get", "--prefix", "--keys-only", prefix);
    assertThat(r.exit()).as(r.out()).isZero();
    return r.out().lines().filter(l -> !l.isEmpty()).count();
  }

  @Test
  void twoContendersTakeTurns() throws Exception {
    Path log = dir.resolve("turns.log");
    Path gate = dir.resolve("gate");
    Files.createFile(log);
    assertThat(new ProcessBuilder("mkfifo", gate.toString()).start().waitFor()).isZero();
    String first = "echo first-in >> " + log + "; read go < " + gate + "; echo first-out >> " + log;
    String second = "echo second-in >> " + log + "; echo second-out >> " + log;
    try (Etcdctl.Started a = Etcdctl.start(dir, follower, "lock", "ctl-turns", "--", "sh", "-c", first)) {
      await().atMost(Duration.ofSeconds(Jetcd.WAIT_S))
          .untilAsserted(() -> assertThat(Files.readString(log)).as(a.output()).contains("first-in"));
      try (Etcdctl.Started b = Etcdctl.start(dir, follower, "lock", "ctl-turns", "--", "sh", "-c", second)) {
        // the second has queued its key behind the first's: from here it can only wait for that key's DELETE
        await().atMost(Duration.ofSeconds(Jetcd.WAIT_S)).until(() -> keys("ctl-turns/") == 2);
        assertThat(Files.readString(log)).isEqualTo("first-in\n");
        Files.writeString(gate, "go\n", StandardCharsets.UTF_8); // blocks until the first's command reads it
        assertThat(b.process().waitFor(Jetcd.WAIT_S, TimeUnit.SECONDS)).as("the second ran its command").isTrue();
        assertThat(b.process().exitValue()).as(b.output()).isZero();
        assertThat(a.process().waitFor(Jetcd.WAIT_S, TimeUnit.SECONDS)).isTrue();
        assertThat(a.process().exitValue()).as(a.output()).isZero();
      }
    }
    assertThat(Files.readString(log)).isEqualTo("first-in\nfirst-out\nsecond-in\nsecond-out\n");
    assertThat(keys("ctl-turns/")).as("both keys gone with their sessions").isZero();
  }

  @Test
  void twoCandidatesLeadInTurnAndAnObserverSeesBoth() throws Exception {
    try (Etcdctl.Started observer = Etcdctl.start(dir, follower, "elect", "-l", "ctl-elect");
         Etcdctl.Started a = Etcdctl.start(dir, follower, "elect", "ctl-elect", "first")) {
      await().atMost(Duration.ofSeconds(Jetcd.WAIT_S))
          .untilAsserted(() -> assertThat(a.output()).as("the first leads").contains("first"));
      try (Etcdctl.Started b = Etcdctl.start(dir, follower, "elect", "ctl-elect", "second")) {
        await().atMost(Duration.ofSeconds(Jetcd.WAIT_S)).until(() -> keys("ctl-elect/") == 2);
        assertThat(b.output()).as("the second waits").doesNotContain("second");
        a.close(); // SIGTERM: etcdctl ends its session, its lease and so its key
        await().atMost(Duration.ofSeconds(Jetcd.WAIT_S))
            .untilAsserted(() -> assertThat(b.output()).as("the second leads").contains("second"));
        await().atMost(Duration.ofSeconds(Jetcd.WAIT_S))
            .untilAsserted(() -> assertThat(observer.output()).contains("first").contains("second"));
        assertThat(observer.output().indexOf("first")).isLessThan(observer.output().indexOf("second"));
      }
    }
  }
}
