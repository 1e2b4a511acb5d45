package io.regent.server.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.regent.client.LeaseKeeper;
import io.regent.client.PartitionOwnership;
import io.regent.client.RegentClient;
import io.regent.server.cluster.LocalCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The PartitionOwnership recipe: revoked before released, assigned with a higher token after; with suspension,
 * a member whose renewals stall is revoked everything and told so, then assigned the same partitions with the
 * same tokens once a renewal gets through.
 */
@Tag("cluster")
class PartitionOwnershipTest {
  private static final Duration WAIT = Duration.ofSeconds(15);

  /** One listener call, in the global order of all members' calls. */
  record Call(String member, String what, int partition, long token) {
  }

  @Test
  void aRebalanceRevokesBeforeTheNewOwnerIsAssigned(@TempDir Path dir) throws Exception {
    List<Call> calls = new CopyOnWriteArrayList<>();
    try (LocalCluster cluster = LocalCluster.start(1, dir)) {
      cluster.awaitLeader();
      RegentClient c = cluster.client();
      try (PartitionOwnership a = PartitionOwnership.join(c, "jobs", "a", 4, 600_000, listener("a", calls))) {
        await().atMost(WAIT).until(() -> a.owned().size() == 4);
        long first = a.token(0);
        PartitionOwnership b = PartitionOwnership.join(c, "jobs", "b", 0, 600_000, listener("b", calls));
        await().atMost(WAIT).until(() -> b.owned().size() == 2 && a.owned().size() == 2);
        for (int p : b.owned().keySet()) {
          int revoked = index(calls, "a", "revoked", p);
          int assigned = index(calls, "b", "assigned", p);
          assertThat(revoked).as("a stopped on %d before b started", p).isGreaterThanOrEqualTo(0)
              .isLessThan(assigned);
          assertThat(b.token(p)).isGreaterThan(first);
        }
        b.close();
        await().atMost(WAIT).until(() -> a.owned().size() == 4);
        assertThat(b.owned()).isEmpty();
      }
    }
  }

  @Test
  void aSuspendedMemberStopsOnEveryPartitionAndResumesWithTheSameTokens(@TempDir Path dir) throws Exception {
    List<Call> calls = new CopyOnWriteArrayList<>();
    AtomicBoolean stall = new AtomicBoolean();
    CountDownLatch release = new CountDownLatch(1);
    List<String> theirs = new CopyOnWriteArrayList<>();
    LeaseKeeper.Options options = LeaseKeeper.options()
        .pauseHook(() -> {
          if (stall.get()) {
            release.await(); // renewals stall, as in a long GC pause of this member's renewal thread
          }
        })
        .suspendWhenInDoubt(reason -> theirs.add("suspended"), () -> theirs.add("resumed"));
    try (LocalCluster cluster = LocalCluster.start(1, dir)) {
      cluster.awaitLeader();
      RegentClient c = cluster.client();
      try (PartitionOwnership a = PartitionOwnership.join(c, "jobs", "a", 4, 3_000, listener("a", calls),
          options)) {
        await().atMost(WAIT).until(() -> a.owned().size() == 4);
        Map<Integer, Long> before = a.owned();

        stall.set(true);
        await().atMost(WAIT).until(() -> calls.stream().anyMatch(k -> k.what().equals("suspended")));
        int suspended = index(calls, "a", "suspended", -1);
        for (int p : before.keySet()) {
          assertThat(index(calls, "a", "revoked", p)).as("revoked %d before suspended", p).isBetween(0, suspended);
        }
        assertThat(a.isValid()).isFalse();
        assertThat(a.owned()).isEmpty();

        stall.set(false);
        release.countDown();
        await().atMost(WAIT).until(() -> a.owned().size() == 4);
        assertThat(a.owned()).as("the same lease: the same tokens").isEqualTo(before);
        int resumed = index(calls, "a", "resumed", -1);
        assertThat(resumed).isGreaterThan(suspended);
        for (int p : before.keySet()) {
          assertThat(calls.lastIndexOf(new Call("a", "assigned", p, before.get(p)))).isGreaterThan(resumed);
        }
        assertThat(theirs).containsExactly("suspended", "resumed"); // the options' own callbacks, after
      }
    }
  }

  private static int index(List<Call> calls, String member, String what, int partition) {
    for (int i = 0; i < calls.size(); i++) {
      Call k = calls.get(i);
      if (k.member().equals(member) && k.what().equals(what) && k.partition() == partition) {
        return i;
      }
    }
    return -1;
  }

  private static PartitionOwnership.Listener listener(String member, List<Call> calls) {
    return new PartitionOwnership.Listener() {
      @Override
      public void onAssigned(int partition, long token) {
        calls.add(new Call(member, "assigned", partition, token));
      }

      @Override
      public void onRevoked(int partition) {
        calls.add(new Call(member, "revoked", partition, 0));
      }

      @Override
      public void onSuspended(String reason) {
        calls.add(new Call(member, "suspended", -1, 0));
      }

      @Override
      public void onResumed() {
        calls.add(new Call(member, "resumed", -1, 0));
      }
    };
  }
}
