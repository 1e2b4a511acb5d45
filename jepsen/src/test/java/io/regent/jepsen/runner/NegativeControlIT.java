package io.regent.jepsen.runner;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.jepsen.checker.Verdict;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The negative control of {@code mvn verify}: servers started with {@code --unsafe-local-grants} grant
 * names without Raft, and the checkers must say so. A checker that could not fail here proves nothing
 * when it passes elsewhere. So a control that cannot run fails instead of skipping: a missing jar or a
 * server without the switch would otherwise turn the control off and leave {@code mvn verify} green.
 */
@Tag("cluster")
class NegativeControlIT {
  private static void requireRunnable() {
    assertThat(ItSupport.missingJar()).as("the negative control needs the server jar").isNull();
    assertThat(ServerFlags.supportsUnsafeLocalGrants(ItSupport.jar()))
        .as("`regent server` has no --unsafe-local-grants switch in this build: the negative control cannot run")
        .isTrue();
  }

  @Test
  void electionCheckerFlagsUnsafeLocalGrants() throws Exception {
    requireRunnable();
    TestRun.RunOutcome out = new TestRun(ItSupport.options("election", 20, List.of(), true, 7)).run();
    assertThat(out.verdict()).as(out.summary()).isEqualTo(Verdict.INVALID);
    assertThat(Files.readString(out.dir().resolve("results.edn"))).contains(":belief {:valid? false");
    ItSupport.assertOutputsAndCleanup(out);
  }

  @Test
  void exclusivityCheckerFlagsUnsafeLocalGrants() throws Exception {
    requireRunnable();
    TestRun.RunOutcome out = new TestRun(ItSupport.options("lease-exclusivity", 12, List.of(), true, 8)).run();
    assertThat(out.verdict()).as(out.summary()).isEqualTo(Verdict.INVALID);
    assertThat(Files.readString(out.dir().resolve("results.edn"))).contains(":exclusivity {:valid? false");
    ItSupport.assertOutputsAndCleanup(out);
  }
}
