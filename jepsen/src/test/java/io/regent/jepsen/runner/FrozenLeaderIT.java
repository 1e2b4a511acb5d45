package io.regent.jepsen.runner;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.jepsen.cluster.Netns;
import io.regent.jepsen.cluster.Processes;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Writes on a frozen leader, on real processes (issue #40 item 6; the long runs are {@code jepsen/run frozen},
 * jepsen/README.md "Frozen-leader runs"): the Raft leader of 3 nodes stopped with SIGSTOP, 6 grants sent through a
 * follower just after, one more 3 s after the freeze, revokes every 40 ms through the live nodes. The late grant
 * must be acknowledged within 1 s of its send and the first revoke within 2 s of the election of the leader that
 * acknowledged it ({@link FrozenLeaderVerdict}, whose negative control is the figures before the fix, in its unit
 * test). The 2 s from the freeze includes the election, which a loaded machine (verify runs two Jepsen runs
 * at once) slows: 2.6 s at a load average of 30 here; the runs on a quiet machine show it (jepsen/README.md).
 */
@Tag("cluster")
class FrozenLeaderIT {
  @Test
  void aWriteAfterTheElectionIsNotHeldByWritesStuckOnTheFrozenLeader() throws Exception {
    assertThat(ItSupport.missingJar()).isNull();
    Map<String, Object> r = new FrozenLeaderRun(new FrozenLeaderRun.Options(3, 1, 6, 5_000, false, "auto",
        ItSupport.store(), ItSupport.jar())).run();
    assertThat(r.get("valid?")).as(String.valueOf(r)).isEqualTo("valid");
    Path dir = Path.of((String) r.get("store"));
    for (String f : List.of("results.json", "n1.log", "n2.log", "n3.log")) {
      assertThat(dir.resolve(f)).as(f).isRegularFile();
    }
    assertThat(Netns.leftBehind()).as("namespaces left behind").isEmpty();
    assertThat(Processes.started().stream().filter(ProcessHandle::isAlive).toList())
        .as("server processes left behind").isEmpty();
  }
}
