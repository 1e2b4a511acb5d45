package io.regent.jepsen.runner;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.jepsen.cluster.Netns;
import io.regent.jepsen.cluster.Processes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The restart run for a short, fixed time (issue #40; the long one is {@code jepsen/run restart}): 3 nodes
 * snapshotting every {@link #SNAPSHOT_THRESHOLD} entries under 8 writing clients, a random node killed (half the
 * time right after one of its snapshots) and restarted 2 s later, kills starting for {@link #SECONDS} s. Each
 * restarted node must reach the others' commit index within 10 s of answering again, and no acknowledged write may
 * be lost. A guard, not a detector: with Ratis's own appender pauses (5 s a round after 30 failed ones,
 * docs/ratis.md §17) these 25 s were valid too; the long runs ({@code jepsen/run restart}, jepsen/README.md
 * "Restart runs") show the difference.
 */
@Tag("cluster")
class RestartIT {
  static final int SECONDS = 25;
  static final long SNAPSHOT_THRESHOLD = 300;

  @Test
  void everyRestartedNodeCatchesUpWithinTenSecondsAndNothingAcknowledgedIsLost() throws Exception {
    assertThat(ItSupport.missingJar()).isNull();
    RestartRun.Options o = new RestartRun.Options(3, Duration.ofSeconds(SECONDS), 100, 8, SNAPSHOT_THRESHOLD,
        10_000, 0, true, 40, "auto", ItSupport.store(), ItSupport.jar(), List.of(), List.of());
    Map<String, Object> r = new RestartRun(o).run();
    assertThat(r.get("valid?")).as(String.valueOf(r)).isEqualTo("valid");
    assertThat((Integer) r.get("kills")).isPositive();
    Path dir = Path.of((String) r.get("store"));
    for (String f : List.of("results.json", "n1.log", "n2.log", "n3.log")) {
      assertThat(dir.resolve(f)).as(f).isRegularFile();
    }
    assertThat(Files.readString(dir.resolve("results.json"))).contains("\"caught-up-ms\"");
    assertThat(Netns.leftBehind()).as("namespaces left behind").isEmpty();
    assertThat(Processes.started().stream().filter(ProcessHandle::isAlive).toList())
        .as("server processes left behind").isEmpty();
  }
}
