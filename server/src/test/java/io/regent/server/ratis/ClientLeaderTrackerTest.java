package io.regent.server.ratis;

import io.regent.server.confirm.Confirmer;
import static org.assertj.core.api.Assertions.assertThat;

import io.regent.server.concurrent.NodeExecutors;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The tracker points the pool at the leader and restarts the Confirmer's round when the leader changes, and
 * again when this node becomes the ready leader: a round it sent itself before it was ready can hang on Ratis's
 * retry of the leader-not-ready reply for longer than the minimum TTL (LeaderPauseTest, strict rule).
 */
class ClientLeaderTrackerTest {
  private static final RaftPeerId SELF = RaftPeerId.valueOf("n0");
  private static final RaftPeerId OTHER = RaftPeerId.valueOf("n1");

  final NodeExecutors executors = new NodeExecutors();
  final List<RaftPeerId> built = new ArrayList<>();
  final AtomicInteger restarts = new AtomicInteger();
  volatile RaftPeerId leader;
  volatile boolean ready;

  @AfterEach
  void stopExecutors() throws InterruptedException {
    executors.close();
  }

  @Test
  void becomingTheReadyLeaderRenewsTheClientsAndRestartsTheRoundOnce() {
    try (RaftClientPool pool = new RaftClientPool(2, this::client, 60_000, executors);
         ClientLeaderTracker tracker = ClientLeaderTracker.start(new CellDivision(server(), RaftSetup.GROUP_ID), pool, 3_600_000, restarts::incrementAndGet,
             executors.timers())) {
      leader = SELF; // won the election, startup entry not applied yet
      tracker.check();
      assertThat(restarts).as("leader changed").hasValue(1);
      assertThat(built).hasSize(4).endsWith(SELF, SELF);
      List<RaftClient> beforeReady = List.of(pool.client(0), pool.client(1));

      ready = true;
      tracker.check();
      assertThat(restarts).as("became ready").hasValue(2);
      assertThat(built).hasSize(6).endsWith(SELF, SELF);
      assertThat(pool.client(0)).isNotSameAs(beforeReady.get(0));
      assertThat(pool.client(1)).isNotSameAs(beforeReady.get(1));

      tracker.check();
      assertThat(restarts).as("still the ready leader: nothing to do").hasValue(2);
      assertThat(built).hasSize(6);
    }
  }

  @Test
  void aFollowerRestartsTheRoundOnlyWhenTheLeaderChanges() {
    try (RaftClientPool pool = new RaftClientPool(1, this::client, 60_000, executors);
         ClientLeaderTracker tracker = ClientLeaderTracker.start(new CellDivision(server(), RaftSetup.GROUP_ID), pool, 3_600_000, restarts::incrementAndGet,
             executors.timers())) {
      leader = OTHER;
      tracker.check();
      tracker.check();
      assertThat(restarts).hasValue(1);
      assertThat(built).containsExactly(null, OTHER);
    }
  }

  private RaftClient client(RaftPeerId startAt) {
    built.add(startAt);
    return (RaftClient) Proxy.newProxyInstance(RaftClient.class.getClassLoader(), new Class<?>[] {RaftClient.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "hashCode" -> System.identityHashCode(proxy);
          case "equals" -> proxy == args[0];
          default -> null;
        });
  }

  /** A Raft server whose one division reports {@link #leader} and {@link #ready}. */
  private RaftServer server() {
    RaftGroup group = RaftGroup.valueOf(RaftSetup.GROUP_ID,
        RaftPeer.newBuilder().setId(SELF).setAddress("127.0.0.1:1").build(),
        RaftPeer.newBuilder().setId(OTHER).setAddress("127.0.0.1:2").build());
    DivisionInfo info = (DivisionInfo) Proxy.newProxyInstance(DivisionInfo.class.getClassLoader(),
        new Class<?>[] {DivisionInfo.class}, (proxy, method, args) -> switch (method.getName()) {
          case "getLeaderId" -> leader;
          case "isLeaderReady" -> ready;
          default -> null;
        });
    RaftServer.Division division = (RaftServer.Division) Proxy.newProxyInstance(
        RaftServer.Division.class.getClassLoader(), new Class<?>[] {RaftServer.Division.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "getInfo" -> info;
          case "getGroup" -> group;
          default -> null;
        });
    return (RaftServer) Proxy.newProxyInstance(RaftServer.class.getClassLoader(), new Class<?>[] {RaftServer.class},
        (proxy, method, args) -> method.getName().equals("getDivision") ? division : null);
  }
}
