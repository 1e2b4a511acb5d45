package io.regent.server.api;

import io.regent.server.membership.ClusterView;
import io.regent.server.membership.RaftLeader;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Metadata;
import io.regent.api.v1.StatusResponse;
import io.regent.client.LeaderMetadata;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.replica.ReplicaView;
import io.regent.statemachine.store.StateTxn;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * What {@link LeaderHeaders} writes, and that the leader's API address is read from the member table once per
 * leader and term (then once per refresh interval), not once per reply.
 */
class LeaderHeadersTest {
  volatile RaftLeader leader = new RaftLeader("n1", "n0", 4);
  volatile String published = "10.0.0.1:7100";
  final AtomicInteger tableReads = new AtomicInteger();
  final AtomicLong clock = new AtomicLong(1_000_000_000L);

  /** A replica whose member table holds {@link #published} for every id; counts the reads. */
  final ReplicaView replica = new ReplicaView() {
    @Override
    @SuppressWarnings("unchecked") // the one read LeaderHeaders makes answers the address, a String
    public <T> T read(Function<StateTxn, T> body) {
      tableReads.incrementAndGet();
      return (T) published;
    }

    @Override
    public long appliedIndex() {
      return 42; // as the state machine answers it: from memory, no table read
    }

    @Override
    public EventHub hub() {
      throw new UnsupportedOperationException();
    }
  };

  final ClusterView view = new ClusterView() {
    @Override
    public StatusResponse status() {
      throw new UnsupportedOperationException("not on the hot path");
    }

    @Override
    public RaftLeader raftLeader() {
      return leader;
    }
  };

  final LeaderHeaders headers = new LeaderHeaders(view, replica, clock::get);

  Metadata written() {
    Metadata md = new Metadata();
    headers.write(md);
    return md;
  }

  @Test
  void everyReplyNamesTheNodeTheTermTheLeaderAndItsAddress() {
    Metadata md = written();
    assertThat(md.get(LeaderMetadata.NODE)).isEqualTo("n1");
    assertThat(md.get(LeaderMetadata.TERM)).isEqualTo("4");
    assertThat(md.get(LeaderMetadata.APPLIED_INDEX)).isEqualTo("42");
    assertThat(md.get(LeaderMetadata.LEADER_ID)).isEqualTo("n0");
    assertThat(md.get(LeaderMetadata.LEADER)).isEqualTo("10.0.0.1:7100");
  }

  @Test
  void theAddressIsReadOncePerLeaderAndTermAndThenOncePerRefresh() {
    for (int i = 0; i < 1_000; i++) {
      written();
    }
    assertThat(tableReads).hasValue(1);
    leader = new RaftLeader("n1", "n2", 5);
    published = "10.0.0.3:7100";
    assertThat(written().get(LeaderMetadata.LEADER)).isEqualTo("10.0.0.3:7100");
    assertThat(tableReads).hasValue(2);
    published = "10.0.0.3:7200"; // published again in the same term (restarted on another port)
    assertThat(written().get(LeaderMetadata.LEADER)).isEqualTo("10.0.0.3:7100");
    clock.addAndGet(LeaderHeaders.REFRESH_NANOS);
    assertThat(written().get(LeaderMetadata.LEADER)).isEqualTo("10.0.0.3:7200");
    assertThat(tableReads).hasValue(3);
  }

  @Test
  void duringAnElectionOnlyTheNodeAndTermAreSent() {
    leader = new RaftLeader("n1", null, 6);
    Metadata md = written();
    assertThat(md.get(LeaderMetadata.TERM)).isEqualTo("6");
    assertThat(md.get(LeaderMetadata.LEADER_ID)).isNull();
    assertThat(md.get(LeaderMetadata.LEADER)).isNull();
    assertThat(tableReads).hasValue(0);
  }

  @Test
  void aLeaderThatHasNotPublishedItsAddressIsNamedByIdAlone() {
    published = null;
    Metadata md = written();
    assertThat(md.get(LeaderMetadata.LEADER_ID)).isEqualTo("n0");
    assertThat(md.get(LeaderMetadata.LEADER)).isNull();
  }

  @Test
  void aNodeWithoutRaftSendsNothing() {
    leader = null;
    assertThat(written().keys()).isEmpty();
  }
}
