package io.regent.server.ratis;

import io.regent.server.confirm.LeadershipLease;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;

/**
 * What the rest of the node asks of its own Ratis division of {@link RaftSetup#GROUP_ID}: the commit index, the
 * term and readiness the leadership lease reads (docs/architecture.md §8.1), and the group as it knows it now,
 * for the node's Ratis clients. Every answer tolerates a server not started yet or already closed.
 */
public final class LocalDivision {
  private final CellDivision cell;
  private final RaftGroup startup;

  /**
   * @param cell the cell's division on this node
   * @param startup this node and its startup peers, with the addresses given at startup
   */
  public LocalDivision(CellDivision cell, RaftGroup startup) {
    this.cell = cell;
    this.startup = startup;
  }

  /** The local Raft log's commit index, or {@code Long.MAX_VALUE} when the server is not up (no local answer). */
  public long commitIndex() {
    try {
      return cell.division().getRaftLog().getLastCommittedIndex();
    } catch (IOException e) {
      return Long.MAX_VALUE;
    }
  }

  /**
   * Ids of the voters of the configuration this node knows now: during a change, those of the old and of the new
   * configuration (Raft's joint consensus needs a majority of each). Empty when the server is not up.
   */
  public Set<String> voterIds() {
    Set<String> ids = new TreeSet<>();
    try {
      var conf = cell.division().getRaftConf();
      conf.getCurrentPeers().forEach(p -> ids.add(p.getId().toString()));
      conf.getPreviousPeers().forEach(p -> ids.add(p.getId().toString()));
    } catch (IOException e) {
      return Set.of(); // not started yet, or closed
    }
    return ids;
  }

  /**
   * The voters that may have acknowledged what this node sent as leader since a time (docs/architecture.md §8.1,
   * "clock rates"): every voter other than {@code self}, less those whose last answer this node's leader state
   * records (Ratis 3.3.0 {@code RoleInfoProto}: each follower's {@code lastRpcElapsedTimeMs}, from its
   * {@code FollowerInfo.getLastRpcResponseTime}) as certainly older than that time. A voter the leader state does not
   * list is kept. {@code null} when this node is not the leader or the server is not up. Times are
   * {@code System.nanoTime}, as Ratis's own timestamps.
   */
  public LeadershipLease.Acknowledgers acknowledgers(String self) {
    return nanos -> {
      Set<String> ids = voterIds();
      RoleInfoProto role;
      try {
        role = cell.division().getInfo().getRoleInfoProto();
      } catch (IOException e) {
        return null; // not started yet, or closed
      }
      // read after the role: each elapsed time was measured before, so now − elapsed is no earlier than the answer
      long now = System.nanoTime();
      if (ids.isEmpty() || role.getRole() != RaftPeerRole.LEADER || !role.hasLeaderInfo()) {
        return null;
      }
      ids.remove(self);
      for (ServerRpcProto f : role.getLeaderInfo().getFollowerInfoList()) {
        // the last answer came at or before now − elapsed (the elapsed milliseconds are rounded down)
        if (now - TimeUnit.MILLISECONDS.toNanos(f.getLastRpcElapsedTimeMs()) - nanos < 0) {
          ids.remove(f.getId().getId().toStringUtf8());
        }
      }
      return ids;
    };
  }

  /** The local Raft server's term, and whether it is its ready leader (the leadership lease asks). */
  public LeadershipLease.Leadership leadership() {
    return new LeadershipLease.Leadership() {
      @Override
      public long readyTerm() {
        try {
          var info = cell.division().getInfo();
          long term = info.getCurrentTerm();
          boolean ready = info.isLeader() && info.isLeaderReady();
          // read twice: a step-down and a re-election between the reads must not pass for readiness in term
          return ready && info.getCurrentTerm() == term ? term : -1;
        } catch (IOException e) {
          return -1; // not started yet, or closed
        }
      }

      @Override
      public long currentTerm() {
        try {
          return cell.division().getInfo().getCurrentTerm();
        } catch (IOException e) {
          return -1;
        }
      }
    };
  }

  /**
   * A Ratis client for proposals, for the group as this node knows it now, sending first to {@code leader} if
   * that group names it (a Ratis client started at a peer outside its group fails every call; the leader may
   * have been removed since it was learnt); its retries end within {@code requestTimeoutMs}.
   */
  public RaftClient proposalClient(RaftProperties props, Parameters parameters, RaftPeerId leader,
                                   long requestTimeoutMs) {
    RaftGroup now = currentGroup();
    return RaftClient.newBuilder().setProperties(props).setParameters(parameters).setRaftGroup(now)
        .setLeaderId(leader != null && now.getPeer(leader) != null ? leader : null)
        .setRetryPolicy(ProposalRetries.within(requestTimeoutMs))
        .build();
  }

  /**
   * The group as this node's Raft server knows it now (it follows membership changes), else the startup group
   * (this node and its startup peers: a joining node knows no group until a member adds it). A peer named in
   * this node's startup peers keeps the address given there: the configuration in the log carries the
   * addresses the proposing leader used, and this node may reach a peer by another route (a proxy, another
   * interface).
   */
  public RaftGroup currentGroup() {
    RaftGroup now;
    try {
      now = cell.division().getGroup();
    } catch (IOException | RuntimeException e) {
      return startup; // not started yet
    }
    if (now.getPeers().isEmpty()) {
      return startup;
    }
    List<RaftPeer> peers = new ArrayList<>();
    for (RaftPeer p : now.getPeers()) {
      RaftPeer own = startup.getPeer(p.getId());
      peers.add(own == null ? p : RaftPeer.newBuilder(p).setAddress(own.getAddress()).build());
    }
    return RaftGroup.valueOf(now.getGroupId(), peers);
  }
}
