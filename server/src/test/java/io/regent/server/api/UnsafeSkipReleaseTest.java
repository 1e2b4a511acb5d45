package io.regent.server.api;

import io.regent.server.config.ServerConfig;
import static org.assertj.core.api.Assertions.assertThat;

import io.regent.api.v1.PartitionOwner;
import io.regent.client.GroupClient;
import io.regent.client.RegentClient;
import io.regent.server.cluster.LocalCluster;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The negative control of the ownership workload is a setting of each node ({@code ServerConfig.unsafeSkipRelease}),
 * not of the process: two clusters running side by side in one JVM, one with it and one without, apply the same
 * join differently.
 */
@Tag("cluster")
class UnsafeSkipReleaseTest {
  @TempDir
  Path dir;

  @Test
  void onlyTheNodeWithTheSettingMovesPartitionsBeforeTheirRelease() throws Exception {
    try (LocalCluster unsafe = LocalCluster.start(1, dir.resolve("unsafe"), c -> c.unsafeSkipRelease(true));
         LocalCluster safe = LocalCluster.start(1, dir.resolve("safe"))) {
      unsafe.awaitLeader();
      safe.awaitLeader();
      assertThat(ownersAfterTwoJoins(unsafe)).as("b took its share before a released it").containsOnly("a", "b");
      assertThat(ownersAfterTwoJoins(safe)).as("a keeps everything until it releases").containsOnly("a");
    }
  }

  /** Member a joins a new group of 4 partitions, then b joins: the owner of each partition right after. */
  private static List<String> ownersAfterTwoJoins(LocalCluster cluster) {
    RegentClient client = cluster.client();
    GroupClient groups = new GroupClient(client);
    groups.join("jobs", "a", 4, client.leases().grant(600_000));
    groups.join("jobs", "b", 0, client.leases().grant(600_000));
    return groups.status("jobs", false).getOwnersList().stream().map(PartitionOwner::getOwner).toList();
  }
}
