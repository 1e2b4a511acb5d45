package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.regent.server.ratis.RaftSetup;
import io.regent.statemachine.replica.ReplicaView;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Byte-level comparison of a running cluster's replicas: each is sampled (applied index, digest of every table) in
 * one read transaction, over and over, until every replica has been seen at one same applied index. The applied
 * index keeps moving with the leader's own entries, so replicas are compared where their indexes meet, never at
 * whatever each holds at one instant.
 */
final class ReplicaDigests {
  private ReplicaDigests() {
  }

  /**
   * Waits (up to 30 s) until every replica has been seen at one applied index, then asserts that at every index seen
   * on all of them the digests are equal.
   */
  static void awaitIdentical(LocalCluster cluster) {
    List<Map<Long, String>> seen = new ArrayList<>();
    for (int i = 0; i < cluster.size(); i++) {
      seen.add(new HashMap<>());
    }
    await("every replica seen at one applied index").atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(1)).until(() -> {
          for (int i = 0; i < cluster.size(); i++) {
            String[] sample = replica(cluster, i).read(t -> new String[] {Long.toString(t.appliedIndex()),
                t.contentDigest()});
            seen.get(i).put(Long.parseLong(sample[0]), sample[1]);
          }
          return !common(seen).isEmpty();
        });
    for (long index : common(seen)) {
      for (int i = 1; i < seen.size(); i++) {
        assertThat(seen.get(i).get(index)).as("replica %d at applied index %d, every table byte for byte", i, index)
            .isEqualTo(seen.get(0).get(index));
      }
    }
  }

  private static Set<Long> common(List<Map<Long, String>> seen) {
    Set<Long> all = new TreeSet<>(seen.get(0).keySet());
    seen.forEach(m -> all.retainAll(m.keySet()));
    return all;
  }

  private static ReplicaView replica(LocalCluster cluster, int i) {
    try {
      return (ReplicaView) cluster.node(i).raft().getDivision(RaftSetup.GROUP_ID).getStateMachine();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
