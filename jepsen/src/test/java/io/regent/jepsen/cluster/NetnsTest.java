package io.regent.jepsen.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Namespaces, blackhole partitions, slots and their cleanup (needs root and `ip netns`; skipped otherwise). */
class NetnsTest {
  @Test
  void cutsHealsAndLeavesNothingBehind() throws Exception {
    String why = Netns.unavailableReason().orElse(null);
    assumeTrue(why == null, "network namespaces unavailable: " + why);
    try (RunLock lock = RunLock.acquire(Duration.ofMinutes(5)); Netns n = Netns.create(lock, 3)) {
      assertThat(lock.slot()).as("the first free slot").isZero();
      assertThat(Netns.existing()).containsExactlyInAnyOrder("regent-j-n1", "regent-j-n2", "regent-j-n3");
      assertThat(Netns.leftBehind()).as("a held slot's namespaces are not left behind").isEmpty();
      n.cut(1, 3);
      n.cut(1, 3);
      assertThat(n.cutLinks()).isEqualTo(2);
      assertThat(Shell.check("ip", "-n", "regent-j-n1", "route")).contains("blackhole 10.77.0.3");
      assertThat(Shell.check("ip", "-n", "regent-j-n3", "route")).contains("blackhole 10.77.0.1");
      n.healAll();
      assertThat(n.cutLinks()).isZero();
      assertThat(Shell.check("ip", "-n", "regent-j-n1", "route")).doesNotContain("blackhole");
    }
    assertThat(Netns.existing()).isEmpty();
    assertThat(Shell.check("ip", "-o", "link", "show")).doesNotContain(Netns.PREFIX);
  }

  /** Two runs at once: the second takes the next slot, with names and a subnet of its own, and cleans up only its own. */
  @Test
  void twoSlotsShareTheMachineWithoutSharingANameOrAnAddress() throws Exception {
    String why = Netns.unavailableReason().orElse(null);
    assumeTrue(why == null, "network namespaces unavailable: " + why);
    try (RunLock first = RunLock.acquire(Duration.ofMinutes(5)); Netns a = Netns.create(first, 2);
         RunLock second = RunLock.acquire(Duration.ofMinutes(5)); Netns b = Netns.create(second, 2)) {
      assertThat(second.slot()).isEqualTo(1);
      assertThat(Netns.existing()).containsExactlyInAnyOrder("regent-j-n1", "regent-j-n2", "regent-j1-n1",
          "regent-j1-n2");
      assertThat(b.address(2)).isEqualTo("10.77.1.2");
      assertThat(Shell.check("ip", "-n", b.namespace(2), "addr", "show", "eth0")).contains("10.77.1.2/24");
      assertThat(Shell.check("ip", "addr", "show", "regent-j1-br")).contains("10.77.1.254/24");
      b.close();
      assertThat(Netns.existing()).as("the second slot's cleanup spares the first").containsExactlyInAnyOrder(
          "regent-j-n1", "regent-j-n2");
    }
    assertThat(Netns.existing()).isEmpty();
  }

  /**
   * The race of CI's stop 44: a free slot checked, then taken by another run that created its namespaces, then
   * listed, showed that run's namespaces as left behind. The lister plays the other run: it takes the slot if it
   * can and would then create namespaces there.
   */
  @Test
  void aFreeSlotIsListedOnlyWhileHeldSoAnotherRunCannotTakeItMeanwhile() throws Exception {
    List<String> slotsTakenMeanwhile = new ArrayList<>();
    List<String> listed = new ArrayList<>();
    List<String> left = Netns.leftBehind(prefix -> {
      listed.add(prefix);
      for (int s = 0; s < RunLock.SLOTS; s++) {
        if (Netns.prefix(s).equals(prefix)) {
          try (RunLock other = RunLock.tryAcquire(s)) {
            if (other != null) {
              slotsTakenMeanwhile.add(prefix);
            }
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      }
      return List.of();
    });
    assertThat(listed).as("at least one slot was free to list").isNotEmpty();
    assertThat(slotsTakenMeanwhile).as("slots another run could take while they were listed").isEmpty();
    assertThat(left).isEmpty();
  }
}
