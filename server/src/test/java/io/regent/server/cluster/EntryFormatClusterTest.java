package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.regent.client.RegentClient;
import io.regent.statemachine.apply.EntryCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A rolling upgrade (docs/operations.md "Upgrades"): while one replica runs a build that applies only
 * version-1 entries, the others write nothing newer — no batch, no request id — under a load that batches, and the
 * three replicas stay byte-identical (every table, compared at one applied index) with the old one applying every
 * entry (it stops at any newer version). Once that replica runs the new build and publishes it, the newer format
 * follows by itself: request ids are stored.
 */
@Tag("cluster")
class EntryFormatClusterTest {
  @RegisterExtension
  final ClusterFixture clusters = ClusterFixture.perTest();

  @Test
  void anOldReplicaHoldsTheClusterAtItsVersionAndTheNewFormatFollowsItsUpgrade() throws Exception {
    AtomicBoolean old = new AtomicBoolean(true);
    LocalCluster cluster = clusters.startEach(3, i -> i == 2
        ? b -> b.maxEntryVersion(old.get() ? EntryCodec.VERSION : EntryCodec.MAX_VERSION) : UnaryOperator.identity());
    cluster.awaitLeader();
    // the old replica leads: it must write only what it applies itself (it stopped applying when it did not)
    await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
        .until(() -> cluster.client().cluster().transferLeadership(LocalCluster.id(2)).equals(LocalCluster.id(2)));
    load(cluster.client(), "before");
    ReplicaDigests.awaitIdentical(cluster);
    String id = UUID.randomUUID().toString();
    assertThat(RequestIdsWritten.grant(cluster, id)).as("version 1 carries no request id: a repeat is a second lease")
        .isNotEqualTo(RequestIdsWritten.grant(cluster, id));

    cluster.stopNode(2);
    old.set(false);
    cluster.startNode(2); // the new build: it publishes its version (EntryCodec.MAX_VERSION) with its timing
    RequestIdsWritten.in(cluster); // once every voter applies version 3
    load(cluster.client(), "after");
    ReplicaDigests.awaitIdentical(cluster);
  }

  /** Grants and campaigns from 16 threads at once: more than the batcher lets go alone, so it batches. */
  private static void load(RegentClient client, String prefix) {
    ExecutorService pool = Executors.newFixedThreadPool(16);
    try {
      List<CompletableFuture<Void>> all = new ArrayList<>();
      for (int t = 0; t < 16; t++) {
        int thread = t;
        all.add(CompletableFuture.runAsync(() -> {
          for (int i = 0; i < 15; i++) {
            long lease = client.leases().grant(3_600_000); // none expires while the replicas are compared
            client.elections().tryCampaign(prefix + "-" + thread + "-" + (i % 3), lease, ByteString.copyFromUtf8("v"));
          }
        }, pool));
      }
      CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
    } finally {
      pool.shutdownNow();
    }
  }
}
