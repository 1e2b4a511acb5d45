package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.regent.api.v1.LeaderKey;
import io.regent.client.RegentClient;
import io.regent.server.config.ServerConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Under the leadership lease (the default), a linearizable read or keepalive at a follower is answered by the
 * leader under its lease, not by a Confirm entry per round (docs/architecture.md §8.1): the log barely grows. And
 * the answer is not stale: a read at the follower that starts after a write through the leader was acknowledged
 * sees that write (§4.1), although the follower itself may not have applied it yet.
 */
@Tag("cluster")
class FollowerLeaseReadTest {
  private static final int READS = 200;

  @RegisterExtension
  final ClusterFixture clusters = ClusterFixture.perTest();

  @Test
  void readsAndKeepalivesAtAFollowerSeeEveryAcknowledgedWriteAndAddAlmostNoEntries() throws Exception {
    LocalCluster cluster = clusters.start(3);
    int leader = cluster.awaitLeaseLeader();
    int follower = (leader + 1) % cluster.size();
    RegentClient viaLeader = cluster.clientOf(leader);
    RegentClient c = cluster.clientOf(follower);
    long lease = c.leases().grant(10_000);
    LeaderKey key = c.elections().campaign("follower-read", lease, ByteString.copyFromUtf8("v"));
    long before = c.cluster().status().getCommitIndex();
    long started = System.nanoTime();
    for (int i = 0; i < READS; i++) {
      // one write through the leader, acknowledged once a majority has it: perhaps not yet this follower
      key = viaLeader.elections().freshToken(key);
      assertThat(c.elections().leader("follower-read")).as("read %d at the follower after token %d was acknowledged", i,
          key.getToken()).contains(key);
      assertThat(c.leases().keepAlive(lease, 10_000)).isPositive();
    }
    long elapsedMs = (System.nanoTime() - started) / 1_000_000;
    long entries = c.cluster().status().getCommitIndex() - before - READS;
    // besides the writes: before the follower asked the leader, one Confirm entry per read and per keepalive (400
    // here); now only the leader's renewals of its own lease, one per half lease (0.4 x the minimum election
    // timeout) at most — so their number grows with the loop's time, which a loaded machine stretches
    long renewals = elapsedMs / (long) (0.4 * ServerConfig.DEFAULT_ELECTION_MIN_MS) + 1;
    assertThat(entries).as("entries besides the writes for %d reads and %d keepalives in %d ms", READS, READS,
        elapsedMs).isLessThanOrEqualTo(renewals + 5).isLessThan(READS);
  }
}
