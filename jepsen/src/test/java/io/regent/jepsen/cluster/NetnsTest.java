package io.regent.jepsen.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Namespaces, blackhole partitions and their cleanup (needs root and `ip netns`; skipped otherwise). */
class NetnsTest {
  @Test
  void cutsHealsAndLeavesNothingBehind() throws Exception {
    String why = Netns.unavailableReason().orElse(null);
    assumeTrue(why == null, "network namespaces unavailable: " + why);
    try (RunLock lock = RunLock.acquire(Duration.ofMinutes(5)); Netns n = Netns.create(3)) {
      assertThat(Netns.existing()).containsExactlyInAnyOrder("regent-j-n1", "regent-j-n2", "regent-j-n3");
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
}
