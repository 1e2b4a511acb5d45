package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.ObserveResponse;
import io.regent.client.LeaderLatch;
import io.regent.client.LeaseKeeper;
import io.regent.client.RegentClient;
import io.regent.client.RegentLock;
import io.regent.client.ResumingObserver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client recipes (LeaderLatch, RegentLock, ResumingObserver) on a real 3-node cluster. */
@Tag("cluster")
class RecipesClusterTest {
  private static final long TTL_MS = 2_000;
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir
  Path dir;
  LocalCluster cluster;
  RegentClient client;
  int follower;

  @BeforeEach
  void start() throws Exception {
    cluster = LocalCluster.start(3, dir);
    follower = (cluster.awaitLeader() + 1) % 3;
    client = cluster.client();
    for (int i = 0; i < 3; i++) {
      ClientFailoverTest.warmUp(cluster.clientOf(i));
    }
  }

  @AfterEach
  void stop() throws Exception {
    cluster.close();
  }

  /** Records a latch's listener calls as "leader T" / "not REASON". */
  private static LeaderLatch.Listener recording(List<String> calls) {
    return new LeaderLatch.Listener() {
      @Override
      public void isLeader(long token) {
        calls.add("leader " + token);
      }

      @Override
      public void notLeader(String reason) {
        calls.add("not " + reason);
      }
    };
  }

  @Test
  void aLatchLeadsUntilClosedThenTheNextLatchLeadsWithAHigherToken() throws Exception {
    List<String> aCalls = new CopyOnWriteArrayList<>();
    List<String> bCalls = new CopyOnWriteArrayList<>();
    LeaderLatch a = new LeaderLatch(client, "latch", ByteString.copyFromUtf8("a"), TTL_MS, false, recording(aCalls));
    LeaderLatch b = new LeaderLatch(client, "latch", ByteString.copyFromUtf8("b"), TTL_MS, false, recording(bCalls));
    a.start();
    assertThat(a.await(WAIT)).isTrue();
    long tokenA = a.token().orElseThrow();
    // as in Curator, await() returns once leadership is held; the listener hears of it on the latch's thread
    await().atMost(WAIT).untilAsserted(() -> assertThat(aCalls).containsExactly("leader " + tokenA));
    b.start();
    assertThat(b.hasLeadership()).isFalse();
    a.close();
    await().atMost(WAIT).untilAsserted(() -> assertThat(aCalls).containsExactly("leader " + tokenA, "not closed"));
    assertThat(a.hasLeadership()).isFalse();
    assertThat(b.await(WAIT)).isTrue();
    assertThat(b.token().orElseThrow()).isGreaterThan(tokenA);
    assertThat(client.elections().leader("latch").orElseThrow().getValue().toStringUtf8()).isEqualTo("b");
    b.close();
    await().atMost(WAIT).until(() -> client.elections().leader("latch").isEmpty());
  }

  @Test
  void aLatchThatLostItsLeaseCampaignsAgainWithAutoRequeue() throws Exception {
    List<String> calls = new CopyOnWriteArrayList<>();
    try (LeaderLatch latch = new LeaderLatch(client, "requeue", ByteString.copyFromUtf8("a"), TTL_MS, true,
        recording(calls))) {
      latch.start();
      assertThat(latch.await(WAIT)).isTrue();
      LeaderKey first = client.elections().leader("requeue").orElseThrow();
      client.leases().revoke(first.getLease()); // as if the lease had expired
      await().atMost(WAIT).until(() -> calls.size() >= 3);
      assertThat(calls.get(0)).isEqualTo("leader " + first.getToken());
      assertThat(calls.get(1)).startsWith("not lease " + first.getLease());
      long second = Long.parseLong(calls.get(2).substring("leader ".length()));
      assertThat(second).isGreaterThan(first.getToken());
      assertThat(latch.await(WAIT)).isTrue();
    }
  }

  @Test
  void aLockIsExclusiveTryLockGivesUpAndTheWaiterGetsItOnUnlock() throws Exception {
    try (RegentLock one = new RegentLock(client, "backups", "one", TTL_MS);
         RegentLock two = new RegentLock(client, "backups", "two", TTL_MS)) {
      long t1 = one.lock();
      assertThat(one.isHeld()).isTrue();
      assertThat(one.token()).hasValue(t1);
      assertThat(two.tryLock(Duration.ofMillis(300))).isEmpty();
      assertThat(two.isHeld()).isFalse();
      CompletableFuture<Long> waiting = two.lockAsync();
      assertThat(waiting).isNotDone();
      one.unlock();
      assertThat(one.isHeld()).isFalse();
      long t2 = waiting.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
      assertThat(t2).isGreaterThan(t1);
      assertThat(two.token()).isEqualTo(OptionalLong.of(t2));
      assertThat(client.elections().leader("backups").orElseThrow().getValue().toStringUtf8()).isEqualTo("two");
      two.unlockAsync().get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
      assertThat(client.elections().leader("backups")).isEmpty();
    }
  }

  @Test
  void anObserverWhoseNodeStopsResumesElsewhereWithoutLossOrRepeat() throws Exception {
    try (RegentClient watcher = RegentClient.connect(List.of(cluster.endpoint(follower),
        cluster.endpoint((follower + 1) % 3)))) {
      List<ObserveResponse> seen = new CopyOnWriteArrayList<>();
      try (ResumingObserver o = ResumingObserver.start(watcher, "watched", 0, seen::add)) {
        await().atMost(WAIT).until(() -> !seen.isEmpty()); // CURRENT
        cluster.stopNode(follower);
        try (LeaseKeeper k = LeaseKeeper.grant(client, TTL_MS, r -> { })) {
          LeaderKey key = client.elections().campaign("watched", k.leaseId(), ByteString.copyFromUtf8("v"));
          await().atMost(WAIT).until(() -> seen.stream().anyMatch(e -> e.getKind() == ObserveResponse.Kind.ELECTED));
          ObserveResponse elected = seen.get(seen.size() - 1);
          assertThat(elected.getLeader()).isEqualTo(key);
          assertThat(elected.getCompacted()).isFalse();
          assertThat(seen).hasSize(2);
          assertThat(o.lastIndex()).isEqualTo(elected.getIndex());
        }
      }
    }
  }

  @Test
  void anObserverResumingAtANodeThatRestartedSinceGetsTheChangeOrTheCurrentStateMarkedCompacted() throws Exception {
    // pinned: a client that discovered the other endpoints would resume elsewhere, not at the restarted node
    try (RegentClient watcher = RegentClient.builder().endpoints(List.of(cluster.endpoint(follower)))
        .discoverEndpoints(false).build()) {
      List<ObserveResponse> seen = new CopyOnWriteArrayList<>();
      try (ResumingObserver o = ResumingObserver.start(watcher, "restarted", 0, seen::add);
           LeaseKeeper k = LeaseKeeper.grant(client, 10_000, r -> { })) {
        await().atMost(WAIT).until(() -> !seen.isEmpty());
        cluster.stopNode(follower);
        LeaderKey key = client.elections().campaign("restarted", k.leaseId(), ByteString.copyFromUtf8("v"));
        cluster.startNode(follower); // its event history starts after the election
        await().atMost(WAIT).until(() -> seen.size() >= 2);
        ObserveResponse resumed = seen.get(1);
        // The restarted node replays its log and may keep the election in its history (then it sends it);
        // if not, it sends the current state marked compacted. Either way the holder is not lost.
        if (resumed.getCompacted()) {
          assertThat(resumed.getKind()).isEqualTo(ObserveResponse.Kind.CURRENT);
        } else {
          assertThat(resumed.getKind()).isEqualTo(ObserveResponse.Kind.ELECTED);
          assertThat(resumed.getIndex()).isEqualTo(key.getToken());
        }
        assertThat(resumed.getLeader()).isEqualTo(key);
        assertThat(o.lastIndex()).isGreaterThanOrEqualTo(key.getToken());
      }
    }
  }
}
