package io.regent.server.etcd;

import io.regent.server.membership.RaftLeader;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Ends the streams opened with etcd's {@code hasleader} metadata (Watch, LeaseKeepAlive, Election.Observe) once
 * this node has lost its leader, with UNAVAILABLE "etcdserver: no leader", so that a client watching through a
 * node cut off from its cluster moves to another instead of waiting on a stream that will hear nothing
 * (docs/migrating.md "etcd's clients"). As etcd does, it looks once per election timeout and ends them only after
 * {@link #CHECKS} looks in a row found no leader: an election that ends in time costs a client no reconnection.
 * A call opened while no leader is known is refused at once ({@link LeaderRequired}).
 */
final class LeaderLoss {
  /** Looks in a row that must find no leader before the streams are ended (etcd's {@code maxNoLeaderCnt}). */
  static final int CHECKS = 3;

  private final Supplier<RaftLeader> leader;
  private final Set<LeaderBoundCall<?, ?>> open = ConcurrentHashMap.newKeySet();
  private int withoutLeader;

  /** @param leader the Raft leader as this node knows it now; null or a null {@code leader()} when it knows none */
  LeaderLoss(Supplier<RaftLeader> leader) {
    this.leader = leader;
  }

  /** Watches {@code call} until it ends. */
  void add(LeaderBoundCall<?, ?> call) {
    open.add(call);
  }

  /** Forgets {@code call}, which ended. */
  void remove(LeaderBoundCall<?, ?> call) {
    open.remove(call);
  }

  /**
   * One look, run every election timeout: counts a look that finds no leader (a known leader resets the count),
   * and at the {@link #CHECKS}th in a row ends every open stream; how many it ended.
   */
  synchronized int check() {
    RaftLeader now = leader.get();
    if (now != null && now.leader() != null) {
      withoutLeader = 0;
      return 0;
    }
    if (++withoutLeader < CHECKS) {
      return 0;
    }
    int ended = 0;
    for (LeaderBoundCall<?, ?> call : open) {
      open.remove(call);
      if (call.endForNoLeader()) {
        ended++;
      }
    }
    return ended;
  }
}
