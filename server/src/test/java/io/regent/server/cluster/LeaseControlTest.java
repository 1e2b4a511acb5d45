package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.client.RegentClient;
import io.regent.server.config.ConfirmRule;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The negative control of {@link PartitionClusterTest}'s lease-window checks: with a leadership lease just past
 * the safe share of the election timeout (1.0 instead of 0.8: no margin left for clock-rate drift, still no longer
 * than the timeout itself), an isolated old leader acknowledges keepalives sent after the safe end, until its longer lease ends; Ratis
 * has it step down only after the maximum election timeout, later still. So those checks see a lease that eats into
 * the margin, not only one that is wildly too long.
 */
@Tag("cluster")
class LeaseControlTest {
  /** Share of the minimum election timeout the control's lease lasts, past {@code LeadershipLease.SAFE_FACTOR}. */
  static final double JUST_PAST_SAFE = 1.0;

  @RegisterExtension
  final ClusterFixture clusters = ClusterFixture.perTest();

  @Test
  void anIsolatedLeaderWithALeaseJustPastTheSafeFactorAcknowledgesAfterTheSafeEnd() throws Exception {
    LocalCluster cluster = clusters.start(3,
        // election timeouts of 1-2 s: the window between the safe end and the lease's end is then 200 ms, wide
        // enough that a loaded machine's scheduling stalls do not hide it
        c -> c.electionTimeout(1_000, 2_000).requestTimeoutMs(4_000).confirm(new ConfirmRule(false, JUST_PAST_SAFE)));
    int old = cluster.awaitLeaseLeader();
    RegentClient viaOld = cluster.clientOf(old);
    long lease = viaOld.leases().grant(3_000);

    LeaseWindow.Seen seen = LeaseWindow.acrossTheCut(cluster, old, () -> viaOld.leases().keepAlive(lease, 8_000));
    assertThat(seen.lateSends()).as("acknowledged after the safe end; %s", seen.describe()).isNotEmpty();
  }
}
