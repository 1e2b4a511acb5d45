package io.regent.jepsen.runner;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.jepsen.checker.Verdict;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * etcd's own {@code etcdctl lock} (Debian's etcd-client 3.4, {@code .ci/run} installs it) as the client of the
 * lease-exclusivity property, through the nodes' etcd ports (issue #36): under node kills, pauses and partitions no
 * two processes believe they hold one lock at once and each lock's tokens grow; its negative control (each process
 * locking a name of its own) must be flagged. Without etcdctl no hold is recorded and both fail, never skip.
 */
@Tag("cluster")
class EtcdctlLockIT {
  @Test
  void etcdctlLocksExcludeEachOtherThroughKillsPausesAndPartitions() throws Exception {
    assertThat(ItSupport.missingJar()).isNull();
    TestRun.RunOutcome out = new TestRun(ItSupport.options("etcdctl-lock", 25, List.of("kill", "pause", "partition"),
        false, 7)).run();
    assertThat(out.verdict()).as(out.summary()).isEqualTo(Verdict.VALID);
    ItSupport.assertOutputsAndCleanup(out);
  }

  @Test
  void theNegativeControlLockingANamePerProcessIsFlagged() throws Exception {
    assertThat(ItSupport.missingJar()).as("the negative control needs the server jar").isNull();
    TestRun.RunOutcome out = new TestRun(ItSupport.options("etcdctl-lock", 8, List.of(), true, 7)).run();
    assertThat(out.verdict()).as(out.summary()).isEqualTo(Verdict.INVALID);
    assertThat(Files.readString(out.dir().resolve("results.edn"))).contains(":exclusivity {:valid? false");
    ItSupport.assertOutputsAndCleanup(out);
  }
}
