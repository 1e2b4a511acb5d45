package io.regent.server.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.regent.server.concurrent.NodeExecutors;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.RaftPeerId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The pool's clients start at the leader the local server follows, and are rebuilt when it changes. */
class RaftClientPoolTest {
  /** Leader hints the factory was called with, one per client built. */
  final List<RaftPeerId> built = new ArrayList<>();
  /** Each closed client, with the name of the thread that closed it. */
  final Map<RaftClient, String> closedBy = new ConcurrentHashMap<>();
  final NodeExecutors executors = new NodeExecutors();

  @AfterEach
  void stopExecutors() throws InterruptedException {
    executors.close();
  }

  RaftClient fake(RaftPeerId leader) {
    built.add(leader);
    return (RaftClient) Proxy.newProxyInstance(RaftClient.class.getClassLoader(), new Class<?>[] {RaftClient.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "getLeaderId" -> leader;
          case "close" -> closedBy.put((RaftClient) proxy, Thread.currentThread().getName());
          case "hashCode" -> System.identityHashCode(proxy);
          case "equals" -> proxy == args[0];
          default -> null;
        });
  }

  @Test
  void aNewLeaderReplacesEveryClientWithOneStartingAtIt() {
    try (RaftClientPool pool = new RaftClientPool(3, this::fake, 60_000, executors)) {
      assertThat(built).containsExactly(null, null, null);
      RaftPeerId n2 = RaftPeerId.valueOf("n2");
      pool.followLeader(n2);
      assertThat(built).hasSize(6).endsWith(n2, n2, n2);
      for (int slot = 0; slot < 3; slot++) {
        assertThat(pool.client(slot).getLeaderId()).isEqualTo(n2);
      }
      pool.followLeader(n2);
      pool.followLeader(null);
      assertThat(built).as("the same leader, or none known, rebuilds nothing").hasSize(6);
    }
  }

  @Test
  void aClientReplacedAfterAFailureStartsAtTheFollowedLeader() {
    try (RaftClientPool pool = new RaftClientPool(2, this::fake, 60_000, executors)) {
      RaftPeerId n3 = RaftPeerId.valueOf("n3");
      pool.followLeader(n3);
      RaftClient failed = pool.client(1);
      pool.replace(1, failed);
      assertThat(pool.client(1)).isNotSameAs(failed);
      assertThat(pool.client(1).getLeaderId()).isEqualTo(n3);
      pool.replace(1, failed);
      assertThat(built).as("a second report of the same failure builds nothing more").hasSize(2 + 2 + 1);
    }
  }

  @Test
  void aReplacedClientIsClosedAfterTheDelayOnTheNodesBlockingPool() {
    try (RaftClientPool pool = new RaftClientPool(1, this::fake, 20, executors)) {
      RaftClient failed = pool.client(0);
      pool.replace(0, failed);
      await().until(() -> closedBy.containsKey(failed));
      assertThat(closedBy.get(failed)).startsWith("regent-blocking-");
      assertThat(closedBy).as("the replacement stays open").doesNotContainKey(pool.client(0));
    }
  }

  @Test
  void closingThePoolClosesTheReplacedClientsStillWaitingForTheirDelayItself() {
    RaftClient failed;
    RaftClient current;
    try (RaftClientPool pool = new RaftClientPool(1, this::fake, 60_000, executors)) {
      failed = pool.client(0);
      pool.replace(0, failed);
      current = pool.client(0);
      assertThat(closedBy).isEmpty();
    }
    assertThat(closedBy).as("closed before close returned, by the close, not handed to the blocking pool")
        .containsOnlyKeys(failed, current);
    assertThat(closedBy.values()).allMatch(t -> t.startsWith("regent-raft-client-close-"));
  }

  @Test
  void closingThePoolClosesAPendingReplacedClientWhenTheNodesExecutorsAreStopped() throws Exception {
    RaftClientPool pool = new RaftClientPool(2, this::fake, 60_000, executors);
    RaftClient failed = pool.client(1);
    pool.replace(1, failed);
    executors.close();
    pool.close();
    assertThat(closedBy).containsOnlyKeys(failed, pool.client(0), pool.client(1));
  }

  @Test
  void aCloseThatBlocksHoldsUpThePoolsCloseOnlyForTheWaitAndNotTheOthers() {
    CountDownLatch unblock = new CountDownLatch(1);
    RaftClient stuck = (RaftClient) Proxy.newProxyInstance(RaftClient.class.getClassLoader(),
        new Class<?>[] {RaftClient.class}, (proxy, method, args) -> switch (method.getName()) {
          case "close" -> unblock.await(1, TimeUnit.MINUTES); // a channel to an unreachable peer
          case "hashCode" -> System.identityHashCode(proxy);
          case "equals" -> proxy == args[0];
          default -> null;
        });
    List<RaftClient> made = new ArrayList<>(List.of(stuck));
    RaftClientPool pool = new RaftClientPool(1, leader -> made.isEmpty() ? fake(leader) : made.remove(0), 60_000,
        executors, 200);
    try {
      pool.replace(0, stuck);
      RaftClient current = pool.client(0);
      long start = System.nanoTime();
      pool.close();
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
      assertThat(closedBy).as("closed in parallel with the stuck one").containsOnlyKeys(current);
    } finally {
      unblock.countDown();
    }
  }

  @Test
  void aWatchOnAClientRunsOnceWhenItIsReplacedUnlessCancelledAndAtOnceWhenItAlreadyWas() {
    try (RaftClientPool pool = new RaftClientPool(1, this::fake, 60_000, executors)) {
      RaftClient first = pool.client(0);
      List<String> ran = new ArrayList<>();
      pool.whenReplaced(first, () -> ran.add("watched"));
      Runnable cancel = pool.whenReplaced(first, () -> ran.add("cancelled"));
      cancel.run();
      assertThat(ran).isEmpty();
      pool.followLeader(RaftPeerId.valueOf("n2"));
      pool.replace(0, first); // a late failure report on the same client runs nothing twice
      assertThat(ran).containsExactly("watched");
      pool.whenReplaced(first, () -> ran.add("late"));
      assertThat(ran).as("a watch on a client already replaced runs at once").containsExactly("watched", "late");
      pool.whenReplaced(pool.client(0), () -> ran.add("current"));
      assertThat(ran).as("the replacement is watched anew").hasSize(2);
    }
  }
}
