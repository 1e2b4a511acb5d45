package io.regent.server.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.statemachine.proto.MemberTiming;
import io.regent.statemachine.replica.ReplicaView;
import io.regent.statemachine.store.RegentStore;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lease is bounded by the smallest minimum election timeout among the voters, as each published it, and
 * none is given while a voter's timing is unknown or lacks the pre-vote (docs/architecture.md §8.1).
 */
class ClusterTimingTest {
  private RegentStore store;
  private final AtomicReference<Set<String>> voters = new AtomicReference<>(Set.of("n1", "n2", "n3"));
  private ClusterTiming timing;

  @BeforeEach
  void open(@TempDir Path dir) {
    store = RegentStore.open(dir);
    ReplicaView replica = StoreReplica.of(store);
    timing = new ClusterTiming("n1", new RaftTiming(600, 1200, true), voters::get, replica);
  }

  @AfterEach
  void close() {
    store.close();
  }

  private void publish(String id, long minMs, boolean preVote) {
    store.write(txn -> {
      txn.putMemberTiming(MemberTiming.newBuilder().setMemberId(id).setMinElectionTimeoutMs(minMs)
          .setPreVote(preVote).build());
      return null;
    });
  }

  @Test
  void aVoterWhoseTimingIsUnknownGivesNoLease() {
    publish("n2", 600, true);
    assertThat(timing.minElectionTimeoutMs()).as("n3 published nothing").isEqualTo(-1);
    publish("n3", 600, true);
    assertThat(timing.minElectionTimeoutMs()).isEqualTo(600);
  }

  @Test
  void theSmallestTimeoutAmongTheVotersBoundsTheLease() {
    publish("n2", 900, true);
    publish("n3", 300, true);
    assertThat(timing.minElectionTimeoutMs()).isEqualTo(300);
    voters.set(Set.of("n1", "n2")); // n3 removed: its timing no longer counts
    assertThat(timing.minElectionTimeoutMs()).isEqualTo(600);
    publish("n1", 450, true); // this node published a smaller value before it restarted with 600
    assertThat(timing.minElectionTimeoutMs()).isEqualTo(450);
  }

  @Test
  void aVoterWithoutThePreVoteGivesNoLease() {
    publish("n2", 600, true);
    publish("n3", 600, false);
    assertThat(timing.minElectionTimeoutMs()).isEqualTo(-1);
  }

  @Test
  void noKnownVotersGiveNoLease() {
    voters.set(Set.of());
    assertThat(timing.minElectionTimeoutMs()).isEqualTo(-1);
  }
}
