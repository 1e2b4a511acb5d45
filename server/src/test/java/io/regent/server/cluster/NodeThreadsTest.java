package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.client.RegentClient;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A serving node runs its own work on the threads docs/architecture.md §10 names, and on no others. */
@Tag("cluster")
class NodeThreadsTest {
  /** Threads of the client library ({@code io.regent.client}), which runs in this JVM beside the node. */
  static final List<String> CLIENT_LIBRARY = List.of("regent-client-", "regent-lease-", "regent-lock-",
      "regent-latch-", "regent-observe-resume", "regent-partitions-");

  @RegisterExtension
  final ClusterFixture clusters = ClusterFixture.perTest();

  @Test
  void aNodeRunsItsTimersItsRatisRepliesAndItsBlockingWorkOnItsNamedExecutors() throws Exception {
    LocalCluster cluster = clusters.start(1, c -> c.metricsPort(0));
    cluster.awaitLeader();
    RegentClient client = cluster.client();
    client.leases().grant(600_000);
    assertThat(client.leases().list()).hasSize(1); // a linearizable read: read from LMDB on the blocking pool
    List<String> names = Thread.getAllStackTraces().keySet().stream().map(Thread::getName).toList();
    assertThat(names).anyMatch(n -> n.matches("regent-timer-\\d+"));
    assertThat(names).anyMatch(n -> n.matches("regent-blocking-\\d+"));
    assertThat(names).anyMatch(n -> n.matches("regent-raft-reply-\\d+")); // the grant's answer continued there
    assertThat(names).filteredOn(n -> n.startsWith("regent-") || n.startsWith("raft-client"))
        .filteredOn(n -> CLIENT_LIBRARY.stream().noneMatch(n::startsWith))
        .as("the node's own threads: its scheduler, its Ratis-reply threads and its blocking pool, nothing a "
            + "component made for itself")
        // regent-single-writer: the single-writer node's writer (§6), regent-raft-client-close-N: the close of a
        // node's Ratis clients; either if a test that ran before in this JVM left them finishing
        .allMatch(n -> n.matches("regent-(timer|blocking|raft-reply)-\\d+|regent-single-writer"
            + "|regent-raft-client-close-\\d+"));
  }
}
