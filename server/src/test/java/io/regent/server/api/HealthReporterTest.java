package io.regent.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.protobuf.services.HealthStatusManager;
import io.regent.api.v1.StatusResponse;
import org.junit.jupiter.api.Test;

/** The readiness rule behind the gRPC health status, step by step. */
class HealthReporterTest {
  private static StatusResponse status(String leader, long commit, long applied) {
    return StatusResponse.newBuilder().setLeader(leader).setCommitIndex(commit).setAppliedIndex(applied).build();
  }

  @Test
  void notServingUntilTheStartUpCatchUpIsDoneAndWhileNoLeaderIsKnown() {
    HealthReporter r = new HealthReporter(() -> status("", 0, 0), new HealthStatusManager(), () -> 0);
    assertThat(r.ready(status("", 0, 3))).as("no leader yet").isFalse();
    assertThat(r.ready(status("n1", 40, 3))).as("behind what was committed when the leader was learnt").isFalse();
    assertThat(r.ready(status("n1", 55, 39))).isFalse();
    assertThat(r.ready(status("n1", 60, 40))).as("caught up to 40").isTrue();
    assertThat(r.ready(status("n1", 80, 70))).as("ordinary lag after the catch-up").isTrue();
    assertThat(r.ready(status("", 80, 80))).as("leader lost").isFalse();
    assertThat(r.ready(status("n2", 90, 80))).as("a leader again").isTrue();
  }

  @Test
  void aSerializableReadAsksForTheLeaderItselfBeforeTheFirstEvaluation() {
    // never started: no evaluation runs, as when the node's timer thread has not been scheduled yet
    HealthReporter r = new HealthReporter(() -> status("n1", 3, 3), new HealthStatusManager(), () -> 3);
    assertThat(r.replayed()).as("leader known and its commit applied").isTrue();
    assertThat(r.replayTarget()).isEqualTo(3);
  }

  @Test
  void aSerializableReadWaitsForTheCommitIndexOfTheFirstLeaderItSaw() {
    HealthReporter r = new HealthReporter(() -> status("n1", 9, 4), new HealthStatusManager(), () -> 4);
    assertThat(r.replayed()).as("applied 4 of 9").isFalse();
    assertThat(r.replayTarget()).isEqualTo(9);
  }
}
