package io.regent.server.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DataDirCellsTest {
  @TempDir
  Path dir;

  @Test
  void cellZeroKeepsTheLayoutOfADirectoryWithoutCells() {
    DataDir d = new DataDir(dir);
    assertThat(d.cell(0).lmdb()).isEqualTo(d.lmdb());
    assertThat(d.cell(0).raftGroup()).isEqualTo(d.raftGroup());
    assertThat(d.cell(2).lmdb()).isEqualTo(dir.resolve("cells.d/2/lmdb"));
    assertThat(d.cell(2).raftGroup().getParent()).isEqualTo(d.raft());
    assertThat(DataDir.groupUuid(1)).isNotEqualTo(DataDir.groupUuid(2)).isNotEqualTo(DataDir.RAFT_GROUP_UUID);
  }

  @Test
  void aDirectoryWrittenBeforeCellsIsOneCell() throws Exception {
    DataDir d = new DataDir(dir);
    Files.createDirectories(d.raftGroup());
    assertThat(d.cells()).isEqualTo(1);
    d.claimCells(1);
    assertThat(dir.resolve(DataDir.CELLS_FILE)).doesNotExist();
    assertThatThrownBy(() -> d.claimCells(4)).isInstanceOf(CellCountException.class)
        .hasMessageContaining("created with 1 cell(s), not 4");
  }

  @Test
  void theNumberOfCellsIsFixedAtCreation() throws Exception {
    DataDir d = new DataDir(dir);
    d.claimCells(4);
    assertThat(d.cells()).isEqualTo(4);
    Files.createDirectories(d.cell(0).raftGroup());
    Files.createDirectories(d.cell(3).raftGroup());
    d.claimCells(4);
    assertThatThrownBy(() -> d.claimCells(2)).isInstanceOf(CellCountException.class)
        .hasMessageContaining("created with 4 cell(s), not 2");
  }

  @Test
  void aStartThatStoppedBeforeRaftHadStateFixedNothing() throws Exception {
    DataDir d = new DataDir(dir);
    d.claimCells(4);
    d.claimCells(2);
    assertThat(d.cells()).isEqualTo(2);
    d.claimCells(1);
    assertThat(dir.resolve(DataDir.CELLS_FILE)).doesNotExist();
  }

  @Test
  void aGroupDirectoryNoCellClaimsIsRefused() throws Exception {
    DataDir d = new DataDir(dir);
    Files.createDirectories(d.cell(3).raftGroup());
    assertThatThrownBy(() -> d.claimCells(2)).isInstanceOf(CellCountException.class)
        .hasMessageContaining("is a Raft group of no cell among 2");
    Files.createDirectories(d.raft().resolve("not-a-group"));
    d.claimCells(4); // other directories are Ratis's business
  }

  @Test
  void anOfflineSnapshotOfSeveralCellsIsRefused() throws Exception {
    new DataDir(dir).claimCells(4);
    assertThatThrownBy(() -> OfflineSnapshots.save(dir, dir.resolve("backup"))).hasMessageContaining("holds 4 cells");
    assertThat(dir.resolve("backup")).doesNotExist();
  }

  @Test
  void aDamagedRecordIsRefused() throws Exception {
    Files.writeString(dir.resolve(DataDir.CELLS_FILE), "four\n");
    assertThatThrownBy(() -> new DataDir(dir).cells()).hasMessageContaining("not a number of cells");
  }
}
