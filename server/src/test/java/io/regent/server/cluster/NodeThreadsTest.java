package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.client.RegentClient;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A serving node runs its own work on the threads docs/architecture.md §10 names, and on no others. */
class NodeThreadsTest {
  @RegisterExtension
  final ClusterFixture clusters = ClusterFixture.perTest();

  @Test
  void aNodeRunsItsTimersAndItsBlockingWorkOnItsTwoNamedExecutors() throws Exception {
    LocalCluster cluster = clusters.start(1, c -> c.metricsPort(0));
    cluster.awaitLeader();
    RegentClient client = cluster.client();
    client.grant(600_000);
    assertThat(client.leases()).hasSize(1); // a linearizable read: read from LMDB on the blocking pool
    List<String> names = Thread.getAllStackTraces().keySet().stream().map(Thread::getName).toList();
    assertThat(names).anyMatch(n -> n.startsWith("regent-timer-"));
    assertThat(names).anyMatch(n -> n.startsWith("regent-blocking-"));
    // the executors each component used to create for itself
    assertThat(names).noneMatch(n -> List.of("regent-publish-api", "regent-membership", "regent-stream",
        "regent-observe", "regent-metrics", "regent-metrics-http").contains(n));
  }
}
