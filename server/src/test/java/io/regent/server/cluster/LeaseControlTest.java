package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.StatusRuntimeException;
import io.regent.client.RegentClient;
import io.regent.server.config.ConfirmRule;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The negative control of {@link PartitionClusterTest}'s keepalive check: with a leadership lease of 30
 * minimum election timeouts (the unsafe setting), an isolated old leader goes on acknowledging keepalives after
 * the point where another leader could have been elected, until Ratis has it step down for want of a majority
 * (after the maximum election timeout). So that check can see a lease that is too long.
 */
class LeaseControlTest {
  @RegisterExtension
  final ClusterFixture clusters = ClusterFixture.perTest();
  LocalCluster cluster;

  @Test
  void anIsolatedLeaderWithAnUnsafeLeaseAcknowledgesAfterASafeLeaseWouldHaveEnded() throws Exception {
    cluster = clusters.start(3, c -> c.requestTimeoutMs(4_000).confirm(new ConfirmRule(false, 30)));
    int old = cluster.awaitLeaseLeader();
    RegentClient viaOld = cluster.clientOf(old);
    long lease = viaOld.grant(3_000);
    viaOld.keepAlive(lease, 5_000); // a committed round: the (unsafe) lease starts

    cluster.isolate(old);
    long isolated = System.nanoTime();
    long minElection = cluster.node(old).config().electionTimeoutMinMs();
    long lastAcknowledgedSend = 0;
    while (true) {
      long sent = System.nanoTime();
      try {
        viaOld.keepAlive(lease, 8_000);
        lastAcknowledgedSend = sent - isolated;
      } catch (StatusRuntimeException e) {
        break; // stepped down
      }
    }
    assertThat(Duration.ofNanos(lastAcknowledgedSend)).isGreaterThan(Duration.ofMillis(minElection));
  }
}
