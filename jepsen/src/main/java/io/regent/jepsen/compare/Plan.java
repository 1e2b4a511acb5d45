package io.regent.jepsen.compare;

import java.time.Duration;
import java.util.List;

/**
 * How long each measurement runs: {@link #full()} for the published comparison, {@link #smoke()} for CI
 * (every target and every measurement, each cut short; the JSON has the same shape).
 *
 * @param mode {@code full} or {@code smoke}
 * @param benchDuration measured time of each {@code regent bench} point
 * @param benchWarmup its warm-up
 * @param clients client counts of the cost points
 * @param baseline probe time before each fault
 * @param faultWindow how long each availability fault is held
 * @param recovery how long to wait for the first grant after a heal, and for every node to serve again
 * @param safety the Jepsen runs per Regent target: workload, nemesis and time limit
 */
record Plan(String mode, Duration benchDuration, Duration benchWarmup, List<Integer> clients, Duration baseline,
    Duration faultWindow, Duration recovery, List<SafetyCase> safety) {

  /** One Jepsen run: a workload under a set of faults for {@code timeLimit}, on the targets whose labels are listed. */
  record SafetyCase(String workload, List<String> nemesis, Duration timeLimit, List<String> targets) {
  }

  /** The full run's time limit of each Jepsen run. */
  private static final Duration FULL_JEPSEN = Duration.ofSeconds(30);

  private static final List<String> REGENT = List.of("regent-3", "regent-5", "single-writer");

  /** The published run: 27 minutes on this project's loaded 2-core machine. */
  static Plan full() {
    return new Plan("full", Duration.ofSeconds(10), Duration.ofSeconds(2), List.of(1, 16, 64), Duration.ofSeconds(3),
        Duration.ofSeconds(15), Duration.ofSeconds(60), List.of(
            new SafetyCase("election", List.of("kill", "pause", "partition"), FULL_JEPSEN, REGENT),
            new SafetyCase("lease-exclusivity", List.of("partition", "leader", "client-pause"), FULL_JEPSEN, REGENT),
            new SafetyCase("ledger", List.of("client-pause", "kill", "pause", "partition"), FULL_JEPSEN, REGENT)));
  }

  /**
   * CI's run: each bench point 1 s after a 1 s warm-up, each fault held 2 s after a 0.5 s baseline, one Jepsen
   * run per Regent target. Regent 3 nodes' run is {@code mvn verify}'s real-cluster smoke run (CompareSmokeIT
   * requires it valid): election for 30 s under kill, pause and client-isolate, long enough for the nemesis to
   * deal the three (a quiet 3–5 s, then a fault held 5–10 s, each kind once per round); the other two runs are
   * 8 s, one fault each. It proves that every target and measurement runs and writes its JSON, not what the
   * numbers are (the full run's 10 s points and 15 s faults are for those). The warm-up stays 1 s: with 0.5 s,
   * 64 clients were still connecting when the measured second began and counted no op.
   */
  static Plan smoke() {
    return new Plan("smoke", Duration.ofSeconds(1), Duration.ofSeconds(1), List.of(1, 16, 64), Duration.ofMillis(500),
        Duration.ofSeconds(2), Duration.ofSeconds(30), List.of(
            new SafetyCase("election", List.of("kill", "pause", "client-isolate"), Duration.ofSeconds(30),
                List.of("regent-3")),
            new SafetyCase("lease-exclusivity", List.of("partition", "leader"), Duration.ofSeconds(8), List.of("regent-5")),
            new SafetyCase("ledger", List.of("client-pause", "kill", "pause"), Duration.ofSeconds(8),
                List.of("single-writer"))));
  }
}
