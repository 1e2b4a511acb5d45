package io.regent.jepsen.runner;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.jepsen.cluster.Netns;
import io.regent.jepsen.cluster.Processes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** Shared by the real-cluster runs of {@code mvn verify}: where the jar and the store are, and the checks after a run. */
final class ItSupport {
  private ItSupport() {
  }

  /** {@code cli/target/regent.jar} (system property {@code regent.jar}, set by the failsafe configuration). */
  static Path jar() {
    return Path.of(System.getProperty("regent.jar", "../cli/target/regent.jar")).toAbsolutePath().normalize();
  }

  /** Why the runs cannot happen here, or null. */
  static String missingJar() {
    return Files.isRegularFile(jar()) ? null
        : "no server jar at " + jar() + ": build the cli module first (mvn -B -pl cli -am package -DskipTests)";
  }

  static Path store() {
    return Path.of(System.getProperty("jepsen.store", "target/jepsen-store"));
  }

  static RunOptions options(String workload, int seconds, List<String> nemesis, boolean negative, long seed) {
    return options(workload, seconds, nemesis, negative, seed, 1);
  }

  /** As above, on a cluster of {@code cells} cells. */
  static RunOptions options(String workload, int seconds, List<String> nemesis, boolean negative, long seed,
                            int cells) {
    return new RunOptions(workload, 3, Duration.ofSeconds(seconds), nemesis, 5, negative, false, "auto", 3000,
        Duration.ofSeconds(5), store(), jar(), seed, Duration.ofSeconds(60), Duration.ofSeconds(20), false, cells);
  }

  /** The store holds every output file, and no namespace or node of ours is left behind. */
  static void assertOutputsAndCleanup(TestRun.RunOutcome out) throws IOException {
    for (String f : List.of("history.edn", "results.edn", "results.json", "timeline.html", "latency.png",
        "rate.png", "n1.log", "n2.log", "n3.log")) {
      assertThat(out.dir().resolve(f)).as(f).isRegularFile();
    }
    assertThat(Netns.leftBehind()).as("namespaces left behind").isEmpty();
    assertThat(Processes.started()).as("the run started its nodes").isNotEmpty();
    assertThat(Processes.started().stream().filter(ProcessHandle::isAlive).toList())
        .as("server processes left behind").isEmpty();
  }
}
