package io.regent.server.raft;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.RaftPeerId;
import org.junit.jupiter.api.Test;

/** The pool's clients start at the leader the local server follows, and are rebuilt when it changes. */
class RaftClientPoolTest {
  /** Leader hints the factory was called with, one per client built. */
  final List<RaftPeerId> built = new ArrayList<>();

  RaftClient fake(RaftPeerId leader) {
    built.add(leader);
    return (RaftClient) Proxy.newProxyInstance(RaftClient.class.getClassLoader(), new Class<?>[] {RaftClient.class},
        (proxy, method, args) -> method.getName().equals("getLeaderId") ? leader : null);
  }

  @Test
  void aNewLeaderReplacesEveryClientWithOneStartingAtIt() {
    try (RaftClientPool pool = new RaftClientPool(3, this::fake, 60_000)) {
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
    try (RaftClientPool pool = new RaftClientPool(2, this::fake, 60_000)) {
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
}
