package io.regent.jepsen.workload;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.server.placement.Placement;
import java.util.List;
import org.junit.jupiter.api.Test;

class CellNamesTest {
  @Test
  void oneCellKeepsTheNamesOfRunsWithoutCells() {
    assertThat(CellNames.spread("e", 3, Placement.SINGLE)).containsExactly("e0", "e1", "e2");
    assertThat(CellNames.outsideCellZero("jepsen-og", Placement.SINGLE)).isEqualTo("jepsen-og");
  }

  @Test
  void severalCellsGetANameEachInATenantOfItsOwn() {
    Placement four = new Placement(4);
    List<String> names = CellNames.spread("e", 3, four);
    assertThat(names).hasSize(4);
    assertThat(names.stream().map(four::cellOf).toList()).containsExactly(0, 1, 2, 3);
    assertThat(names.stream().map(Placement::tenantOf).distinct()).hasSize(4);
    assertThat(names).allMatch(n -> n.endsWith("/e" + names.indexOf(n)));
    assertThat(CellNames.spread("x", 6, four).stream().map(four::cellOf).toList()).containsExactly(0, 1, 2, 3, 0, 1);
  }

  @Test
  void theOwnershipGroupLeavesCellZero() {
    Placement four = new Placement(4);
    String group = CellNames.outsideCellZero("jepsen-og", four);
    assertThat(four.cellOf(group)).isEqualTo(1);
    assertThat(group).endsWith("/jepsen-og");
  }
}
