package io.regent.server.cluster;

import static org.awaitility.Awaitility.await;

import io.regent.client.RegentClient;
import io.regent.server.ratis.RaftSetup;
import io.regent.statemachine.replica.ReplicaView;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An idle cluster's followers apply a write as soon as the leader has committed it, not at the leader's next
 * heartbeat (docs/ratis.md §9): a linearizable read or a watch at a follower waits for exactly that. Without the
 * leader's commit push (CommitPushAppender) a follower learnt of the commit from the next heartbeat, half the
 * minimum election timeout later; with timeouts of 4-8 s here that is 2 s, so each of these writes reached the
 * follower within a quarter of the timeout only by luck (one chance in two; all of them, one in 2^WRITES).
 */
@Tag("cluster")
class CommitPushClusterTest {
  private static final int WRITES = 10;
  private static final long ELECTION_MIN_MS = 4_000;

  @RegisterExtension
  final ClusterFixture clusters = ClusterFixture.perTest();

  @Test
  void anIdleFollowerAppliesEachWriteWellBeforeTheNextHeartbeat() throws Exception {
    LocalCluster cluster = clusters.start(3, c -> c.electionTimeout(ELECTION_MIN_MS, 2 * ELECTION_MIN_MS));
    int leader = cluster.awaitLeader();
    RegentClient c = cluster.clientOf(leader);
    long ttl = cluster.node(leader).config().minTtlMs();
    for (int i = 0; i < WRITES; i++) {
      // revoked at once: a live lease's checkpoints would be entries that carry the commit index along
      c.leases().revoke(c.leases().grant(ttl));
      long written = replica(cluster, leader).appliedIndex();
      for (int f = 0; f < cluster.size(); f++) {
        ReplicaView follower = replica(cluster, f);
        int n = f;
        await(String.format("write %d (index %d) applied at n%d", i, written, n))
            .atMost(Duration.ofMillis(ELECTION_MIN_MS / 4)).pollInterval(Duration.ofMillis(5))
            .until(() -> follower.appliedIndex() >= written);
      }
    }
  }

  private static ReplicaView replica(LocalCluster cluster, int i) {
    try {
      return (ReplicaView) cluster.node(i).raft().getDivision(RaftSetup.GROUP_ID).getStateMachine();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
