package io.regent.jepsen.runner;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.jepsen.checker.Verdict;
import io.regent.jepsen.history.EdnReader;
import io.regent.jepsen.history.Op;
import io.regent.server.placement.Placement;
import java.nio.file.Files;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The election workload over a cluster of four cells (docs/architecture.md §14, issue #38): its names sit in every
 * cell, and under node kills, pauses and partitions each name's grants stay linearizable, beliefs exclusive and tokens
 * strictly increasing in the name's cell. Its negative control ({@code --unsafe-local-grants}: a node grants from its
 * own replica, so a name's tokens in its cell no longer strictly increase) must be flagged; a build without the
 * switch fails it rather than skipping.
 */
@Tag("cluster")
class CellsIT {
  private static final Placement FOUR = new Placement(4);

  @Test
  void electionOverFourCellsStaysValidThroughKillsPausesAndPartitions() throws Exception {
    assertThat(ItSupport.missingJar()).isNull();
    TestRun.RunOutcome out = new TestRun(ItSupport.options("election", 25, List.of("kill", "pause", "partition"),
        false, 41, 4)).run();
    assertThat(out.verdict()).as(out.summary()).isEqualTo(Verdict.VALID);
    assertThat(cellsGranted(out)).as("cells in which a campaign was elected").containsExactlyInAnyOrder(0, 1, 2, 3);
    ItSupport.assertOutputsAndCleanup(out);
  }

  @Test
  void theNegativeControlOverFourCellsIsFlagged() throws Exception {
    assertThat(ItSupport.missingJar()).as("the negative control needs the server jar").isNull();
    assertThat(ServerFlags.supportsUnsafeLocalGrants(ItSupport.jar()))
        .as("`regent server` has no --unsafe-local-grants switch in this build: the negative control cannot run")
        .isTrue();
    TestRun.RunOutcome out = new TestRun(ItSupport.options("election", 15, List.of(), true, 42, 4)).run();
    assertThat(out.verdict()).as(out.summary()).isEqualTo(Verdict.INVALID);
    assertThat(Files.readString(out.dir().resolve("results.edn"))).contains(":linearizable {:valid? false");
    ItSupport.assertOutputsAndCleanup(out);
  }

  /** The cells of the names some campaign was elected to, from the run's history. */
  private static Set<Integer> cellsGranted(TestRun.RunOutcome out) throws Exception {
    return EdnReader.readHistory(out.dir().resolve("history.edn")).ops().stream()
        .filter(op -> op.type() == Op.Type.OK && op.f().name().equals("grant"))
        .map(op -> FOUR.cellOf(String.valueOf(op.key()))).collect(Collectors.toSet());
  }
}
