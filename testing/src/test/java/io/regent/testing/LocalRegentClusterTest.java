package io.regent.testing;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Bad sizes are refused before anything starts (the examples module's tests run the fixture's clusters). */
class LocalRegentClusterTest {
  @Test
  void aSizeOutsideOneToSevenIsRefused() {
    assertThatThrownBy(() -> LocalRegentCluster.start(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a local cluster has 1 to 7 nodes, not 0");
    assertThatThrownBy(() -> LocalRegentCluster.start(8)).isInstanceOf(IllegalArgumentException.class);
  }
}
