package io.regent.cli.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.cli.command.group.GroupJoinCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The partitions file as {@code ledger partition-loop} reads it (written by {@code group join --exec}). */
class LedgerPartitionLoopTest {
  @TempDir
  Path dir;

  @Test
  void readsPartitionsAndTokensSkippingWhatDoesNotParse() throws Exception {
    Path file = dir.resolve("partitions");
    GroupJoinCommand.write(file, Map.of(3, 41L, 0, 17L));
    assertThat(LedgerPartitionLoopCommand.read(file)).containsExactly(Map.entry(0, 17L), Map.entry(3, 41L));
    Files.writeString(file, "5 9\nnot a line\n6\n7 x\n");
    assertThat(LedgerPartitionLoopCommand.read(file)).containsExactly(Map.entry(5, 9L));
  }

  @Test
  void noFileYetIsNoPartition() throws Exception {
    assertThat(LedgerPartitionLoopCommand.read(dir.resolve("absent"))).isEmpty();
  }
}
