package io.regent.server.placement;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LeaseIdsTest {
  @Test
  void aLeaseIdCarriesItsCell() {
    assertThat(LeaseIds.base(0)).isZero();
    assertThat(LeaseIds.cellOf(412)).as("cell 0's ids are those of a cluster without cells").isZero();
    assertThat(LeaseIds.cellOf(LeaseIds.base(3) + 412)).isEqualTo(3);
    long last = LeaseIds.base(Placement.MAX_CELLS - 1) + (1L << 48) - 1;
    assertThat(last).as("ids stay positive, as etcd's signed lease ids").isPositive();
    assertThat(LeaseIds.cellOf(last)).isEqualTo(Placement.MAX_CELLS - 1);
    assertThat(LeaseIds.cellOf(-5)).isEqualTo(-1);
  }
}
