package io.regent.jepsen.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.regent.jepsen.checker.Verdict;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The smoke run of {@code mvn verify}: 3 real nodes, 30 s of the election workload under kill -9,
 * SIGSTOP and client-isolate faults (one round of each). Regent must come out valid.
 */
@Tag("cluster")
class SmokeRunIT {
  @Test
  void electionUnderKillPauseAndClientIsolateIsValid() throws Exception {
    String missing = ItSupport.missingJar();
    assumeTrue(missing == null, missing);
    TestRun.RunOutcome out = new TestRun(ItSupport.options("election", 30, List.of("kill", "pause", "client-isolate"), false, 42))
        .run();
    assertThat(out.verdict()).as(out.summary()).isEqualTo(Verdict.VALID);
    ItSupport.assertOutputsAndCleanup(out);
  }
}
