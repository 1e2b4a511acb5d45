package io.regent.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.client.RegentClient;
import io.regent.server.cluster.ClusterFixture;
import io.regent.server.cluster.LocalCluster;
import io.regent.server.limits.ServerLimits;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A connection that spends its request budget is refused with RESOURCE_EXHAUSTED; a new connection is not. */
@Tag("cluster")
class RateLimitTest {
  /** One token per 1000 s after a burst of 10: the budget cannot refill during the test, however slow. */
  static final ServerLimits LIMITS = new ServerLimits(1 << 20, 100, 100, 1_000, 1_000, 10, 3_600_000, 0.001, 10,
      100, 64);
  @RegisterExtension
  static final ClusterFixture CLUSTERS = ClusterFixture.perClass();
  static LocalCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = CLUSTERS.start(1, c -> c.limits(LIMITS));
    cluster.awaitLeader();
  }

  @Test
  void aConnectionOverItsRateIsRefusedWhileAFreshConnectionIsServed() {
    try (RegentClient greedy = RegentClient.connect(cluster.endpoint(0));
         RegentClient polite = RegentClient.connect(cluster.endpoint(0))) {
      int served = 0;
      StatusRuntimeException refused = null;
      while (refused == null && served <= 10) {
        try {
          greedy.elections().leader("jobs");
          served++;
        } catch (StatusRuntimeException e) {
          refused = e;
        }
      }
      assertThat(served).isEqualTo(10);
      assertThat(refused).isNotNull();
      assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertThat(refused.getStatus().getDescription()).contains("request rate").contains("--max-request-rate");
      assertThat(polite.elections().leader("jobs")).isEmpty();
    }
  }
}
