package io.regent.jepsen.runner;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.jepsen.checker.Verdict;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The retry workload for a short, fixed time (issue #34): holders that retry as the libraries do, on two names,
 * while the Raft leader — the node serving their blocking campaigns — is paused for longer than the client's
 * channel keepalive takes to give up on it. Seed 34 (its nemesis schedule and the clients' choices), 8 clients,
 * found the stranded-campaign cleanup before the fix (a holder elected after failing over, whose name the resumed
 * node's cleanup gave to another); the run must now be valid. Its negative control runs the same seed
 * against servers started with {@code --unsafe-cleanup-any-attempt} (the cleanup of before the fix) and must be
 * invalid; it fails, never skips, when the server jar lacks that switch.
 */
@Tag("cluster")
class RetryHuntIT {
  static final long SEED = 34;
  static final int SECONDS = 40;
  /**
   * The negative control's run, s: three pauses instead of two. Since the Java client leaves a leader whose call has
   * gone 1 s unanswered (docs/api.md "Leader-aware routing"), fewer calls wait on the paused node, and a clean-clone
   * run of 40 s found no violation once (11 holds), where a second run of the same build found one. Runs of 60 s
   * still missed (3 of 4 found it, 2026-12-07): the resumed node proposed its stranded calls' cleanups through the
   * leader it last knew, itself, 6-8 of them failed per run and were dropped, and a dropped cleanup is a violation
   * the control cannot show. Cleanups are now proposed again until they commit; 5 runs of 5 found it after.
   */
  static final int CONTROL_SECONDS = 60;
  /** Eight holders on two names: several wait on the paused node, some still hold when it resumes. */
  static final int CLIENTS = 12;

  private static RunOptions options(boolean negativeControl) {
    RunOptions o = ItSupport.options("retry", negativeControl ? CONTROL_SECONDS : SECONDS, List.of("pause-serving"),
        negativeControl, SEED);
    return new RunOptions(o.workload(), o.nodes(), o.timeLimit(), o.nemesis(), CLIENTS, o.negativeControl(),
        o.singleWriter(), o.network(), o.ttlMs(), o.opTimeout(), o.storeRoot(), o.jar(), o.seed(), o.checkBudget(),
        o.recoveryTimeout(), o.tryCampaign(), o.cells());
  }

  @Test
  void holdersThatRetryKeepTheirNamesThroughPausesOfTheServingNode() throws Exception {
    assertThat(ItSupport.missingJar()).isNull();
    TestRun.RunOutcome out = new TestRun(options(false)).run();
    assertThat(out.verdict()).as(out.summary()).isEqualTo(Verdict.VALID);
    ItSupport.assertOutputsAndCleanup(out);
  }

  @Test
  void theNegativeControlCleaningUpAnyAttemptIsFlagged() throws Exception {
    assertThat(ItSupport.missingJar()).as("the negative control needs the server jar").isNull();
    assertThat(ServerFlags.supports(ItSupport.jar(), "--unsafe-cleanup-any-attempt"))
        .as("`regent server` has no --unsafe-cleanup-any-attempt switch in this build: the negative control "
            + "cannot run").isTrue();
    TestRun.RunOutcome out = new TestRun(options(true)).run();
    assertThat(out.verdict()).as(out.summary()).isEqualTo(Verdict.INVALID);
    // The unsafe cleanup shows as a holder whose belief a holder read contradicts (:retry) or, when the name's next
    // holder believed it before the first stopped, as two overlapping beliefs (:exclusivity; a clean-clone verify
    // saw only that one, 2026-12-07): either is this control's violation, the only change from the valid run above.
    assertThat(Files.readString(out.dir().resolve("results.edn")))
        .containsAnyOf(":retry {:valid? false", ":exclusivity {:valid? false");
    ItSupport.assertOutputsAndCleanup(out);
  }
}
