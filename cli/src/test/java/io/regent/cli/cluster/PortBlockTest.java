package io.regent.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/**
 * Two choosers of a block before any node has bound a port (two surefire JVMs of the cli module starting a cluster
 * at once) get different blocks. The reservation is a bound socket, which the operating system keeps from every
 * other socket, in this process or another: two reservations in one JVM stand for two JVMs.
 */
class PortBlockTest {
  @Test
  void aHeldBlockIsNotChosenAgainBeforeItsNodesBind() {
    try (PortBlock first = PortBlock.reserve(); PortBlock second = PortBlock.reserve()) {
      // before reservations, both would have been the first block whose node ports were free: the same one
      assertThat(second.base()).isNotEqualTo(first.base());
      assertThat((first.base() - PortBlock.FIRST) % PortBlock.STEP).isZero();
      assertThat((second.base() - PortBlock.FIRST) % PortBlock.STEP).isZero();
      assertThat(ProcessCluster.portFree(first.base())).as("a held block's base port").isFalse();
    }
  }

  @Test
  void aBlockIsFreeAgainOnceClosedAndSkippedWhileANodePortIsTaken() throws Exception {
    int base;
    try (PortBlock block = PortBlock.reserve()) {
      base = block.base();
    }
    assertThat(ProcessCluster.portFree(base)).as("a closed block's base port").isTrue();
    try (ServerSocket api = new ServerSocket()) {
      api.bind(new InetSocketAddress(ProcessCluster.HOST, base + 101)); // n1's API port, as another cluster's node
      try (PortBlock block = PortBlock.reserve()) {
        assertThat(block.base()).isNotEqualTo(base);
      }
    }
  }
}
