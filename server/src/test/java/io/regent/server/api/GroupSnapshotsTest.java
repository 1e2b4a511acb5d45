package io.regent.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.api.v1.GroupWatchResponse;
import io.regent.api.v1.PartitionToken;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.GroupMember;
import io.regent.statemachine.proto.GroupRecord;
import io.regent.statemachine.replica.ReplicaView;
import io.regent.statemachine.store.RegentStore;
import io.regent.statemachine.store.StateTxn;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Watch streams of a group share one read per change, and never get a state older than their event. */
class GroupSnapshotsTest {
  @TempDir
  Path dir;

  @Test
  void everyStreamOfAGroupSharesOneReadPerChange() {
    try (RegentStore store = RegentStore.open(dir)) {
      AtomicInteger reads = new AtomicInteger();
      ReplicaView replica = counting(store, reads);
      // a owns 0-2 and must release 2 to b; b owns 3
      put(store, 5, group(List.of(1L, 1L, 1L, 2L), List.of(1L, 1L, 2L, 2L), List.of(3L, 3L, 3L, 4L)));
      GroupSnapshots snapshots = new GroupSnapshots(replica);
      GroupSnapshots.Shared first = snapshots.open("g");
      GroupSnapshots.Shared second = snapshots.open("g");
      assertThat(second).isSameAs(first);

      for (int stream = 0; stream < 100; stream++) {
        first.atLeast(5).member(stream % 2 == 0 ? "a" : "b");
      }
      assertThat(reads).as("reads for 100 streams after one change").hasValue(1);
      GroupWatchResponse a = first.atLeast(5).member("a");
      assertThat(a.getIndex()).isEqualTo(5);
      assertThat(a.getJoined()).isTrue();
      assertThat(a.getLease()).isEqualTo(1);
      assertThat(a.getOwnedList()).extracting(PartitionToken::getPartition).containsExactly(0, 1, 2);
      assertThat(a.getReleaseList()).containsExactly(2);
      assertThat(a.getIncomingList()).isEmpty();
      GroupWatchResponse b = first.atLeast(5).member("b");
      assertThat(b.getOwnedList()).containsExactly(PartitionToken.newBuilder().setPartition(3).setToken(4).build());
      assertThat(b.getIncomingList()).containsExactly(2);
      assertThat(first.atLeast(5).member("stranger")).isEqualTo(GroupWatchResponse.newBuilder().setIndex(5)
          .setPartitions(4).build());

      // the release applies at 6: a stream that heard of it must not get the cached state of 5
      put(store, 6, group(List.of(1L, 1L, 2L, 2L), List.of(1L, 1L, 2L, 2L), List.of(3L, 3L, 6L, 4L)));
      assertThat(first.atLeast(6).member("b").getOwnedList()).extracting(PartitionToken::getPartition)
          .containsExactly(2, 3);
      assertThat(first.atLeast(5).index()).as("the newer snapshot also serves an older need").isEqualTo(6);
      assertThat(reads).hasValue(2);

      snapshots.close(first);
      assertThat(snapshots.watchedGroups()).isEqualTo(1);
      snapshots.close(second);
      assertThat(snapshots.watchedGroups()).as("dropped with its last stream").isZero();
    }
  }

  @Test
  void aGroupThatDoesNotExistIsAnEmptyAssignment() {
    try (RegentStore store = RegentStore.open(dir)) {
      put(store, 3, null);
      GroupSnapshots.Shared s = new GroupSnapshots(counting(store, new AtomicInteger())).open("g");
      assertThat(s.atLeast(3).member("a")).isEqualTo(GroupWatchResponse.newBuilder().setIndex(3).build());
    }
  }

  /** Group "g" of 4 partitions, members "a" (lease 1) and "b" (lease 2), with these owners, targets, tokens. */
  static GroupRecord group(List<Long> owner, List<Long> target, List<Long> token) {
    return GroupRecord.newBuilder().setName("g").setPartitions(4)
        .addMembers(GroupMember.newBuilder().setId("a").setLeaseId(1).setJoinedIndex(1))
        .addMembers(GroupMember.newBuilder().setId("b").setLeaseId(2).setJoinedIndex(4))
        .addAllOwner(owner).addAllTarget(target).addAllToken(token).build();
  }

  /** Writes {@code g} (none if null) to {@code store} as applied at {@code index}. */
  static void put(RegentStore store, long index, GroupRecord g) {
    store.write(txn -> {
      if (g != null) {
        txn.putGroup(g);
      }
      txn.setAppliedIndex(index);
      return null;
    });
  }

  /** A replica over {@code store} that counts its reads in {@code reads}. */
  static ReplicaView counting(RegentStore store, AtomicInteger reads) {
    EventHub hub = new EventHub(1);
    return new ReplicaView() {
      @Override
      public <T> T read(Function<StateTxn, T> body) {
        reads.incrementAndGet();
        return store.read(body);
      }

      @Override
      public EventHub hub() {
        return hub;
      }
    };
  }
}
