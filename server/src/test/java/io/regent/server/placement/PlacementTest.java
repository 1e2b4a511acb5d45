package io.regent.server.placement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PlacementTest {
  @Test
  void tenantIsTheHashTagElseTheFirstSegmentElseTheName() {
    assertThat(Placement.tenantOf("{orders}/leader")).isEqualTo("orders");
    assertThat(Placement.tenantOf("jobs/{orders}/a")).isEqualTo("orders");
    assertThat(Placement.tenantOf("payments/leader")).isEqualTo("payments");
    assertThat(Placement.tenantOf("payments")).isEqualTo("payments");
    assertThat(Placement.tenantOf("{}/x")).as("an empty tag is no tag").isEqualTo("{}");
    assertThat(Placement.tenantOf("/x")).as("a leading slash is no segment").isEqualTo("/x");
    assertThat(Placement.tenantOf("{open/x")).isEqualTo("{open");
    assertThat(Placement.tenantOf("")).isEmpty();
  }

  @Test
  void aTenantsNamesShareOneCell() {
    Placement p = new Placement(4);
    int cell = p.cellOf("payments/leader");
    assertThat(p.cellOf("payments/lock/a")).isEqualTo(cell);
    assertThat(p.cellOf("payments")).isEqualTo(cell);
    assertThat(p.cellOf("x/{payments}")).isEqualTo(cell);
  }

  @Test
  void tenantsSpreadOverEveryCellByCrc32() {
    Placement p = new Placement(4);
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < 64; i++) {
      int cell = p.cellOf("tenant-" + i + "/x");
      assertThat(cell).isBetween(0, 3);
      seen.add(cell);
    }
    assertThat(seen).containsExactlyInAnyOrder(0, 1, 2, 3);
    // CRC-32 of "a" is 0xE8B7BE43 = 3904355907; 3904355907 mod 4 = 3: the value clients in other languages compute
    assertThat(p.cellOfTenant("a")).isEqualTo(3);
    assertThat(new Placement(5).cellOfTenant("a")).isEqualTo((int) (3904355907L % 5));
  }

  @Test
  void oneCellHoldsEveryName() {
    assertThat(Placement.SINGLE.cellOf("anything/at/all")).isZero();
  }

  @Test
  void theNumberOfCellsIsBounded() {
    assertThatThrownBy(() -> new Placement(0)).hasMessageContaining("outside 1..");
    assertThatThrownBy(() -> new Placement(Placement.MAX_CELLS + 1)).hasMessageContaining("outside 1..");
  }
}
