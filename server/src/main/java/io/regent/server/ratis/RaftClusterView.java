package io.regent.server.ratis;

import io.regent.api.v1.Member;
import io.regent.api.v1.KvStats;
import io.regent.api.v1.StatusResponse;
import io.regent.client.RegentVersion;
import io.regent.server.membership.RaftLeader;
import io.regent.server.membership.ClusterView;
import io.regent.server.membership.FollowerLag;
import io.regent.server.membership.FollowerLagTracker;
import io.regent.server.membership.Membership;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;

/** The Raft group as the local Ratis division sees it (its current configuration, not the startup peers). */
public final class RaftClusterView implements ClusterView {
  private final CellDivision cell;
  private final RaftMembership membership;
  private final Path stateFile;
  private final FollowerLagTracker lagTracker = new FollowerLagTracker(System::nanoTime);
  private volatile String consoleUrl = "";
  private volatile String etcdAddress = "";
  private volatile Supplier<KvStats> kvStats;

  /**
   * @param cell the cell's division on this node
   * @param membership the members and their changes
   */
  public RaftClusterView(CellDivision cell, RaftMembership membership) {
    this(cell, membership, null);
  }

  /** Like the two-argument constructor, reporting the size of {@code stateFile} (null: 0) in Status. */
  public RaftClusterView(CellDivision cell, RaftMembership membership, Path stateFile) {
    this.cell = cell;
    this.membership = membership;
    this.stateFile = stateFile;
  }

  private long stateBytes() {
    try {
      return stateFile == null ? 0 : Files.size(stateFile);
    } catch (IOException e) {
      return 0; // not created yet, or being replaced by a snapshot install
    }
  }

  @Override
  public StatusResponse status() {
    try {
      var division = cell.division();
      DivisionInfo info = division.getInfo();
      Map<String, FollowerLag> lag = followerLag();
      long lastIndex = division.getRaftLog().getNextIndex() - 1;
      String self = cell.serverId().toString();
      return StatusResponse.newBuilder()
          .setNode(cell.serverId().toString())
          .setLeader(info.getLeaderId() == null ? "" : info.getLeaderId().toString())
          .setTerm(info.getCurrentTerm())
          .setCommitIndex(division.getRaftLog().getLastCommittedIndex())
          .setAppliedIndex(info.getLastAppliedIndex())
          .setRole(info.isAlive() ? info.getCurrentRole().name() : "STOPPED") // closed for good (an apply threw)
          .addAllMembers(membership.members().stream().map(m -> withLag(m, self, lag, lastIndex)).toList())
          .setDegraded(FollowerLag.degraded(lag))
          .setVersion(RegentVersion.current())
          .setDbSizeBytes(stateBytes())
          .setConsoleUrl(consoleUrl)
          .setEtcdAddress(etcdAddress)
          .setKv(etcdAddress.isEmpty() || kvStats == null ? KvStats.getDefaultInstance() : kvStats.get())
          .build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * {@code m} with its replication progress when this node leads ({@code lag} not empty): a follower's from
   * {@code lag}, this node's own its last log index and no lag; {@code m} unchanged otherwise.
   */
  private static Member withLag(Member m, String self, Map<String, FollowerLag> lag, long lastIndex) {
    FollowerLag l = m.getId().equals(self) && !lag.isEmpty() ? new FollowerLag(lastIndex, 0, 0) : lag.get(m.getId());
    return l == null ? m : m.toBuilder().setReplication(io.regent.api.v1.Replication.newBuilder()
        .setMatchIndex(l.matchIndex()).setLagEntries(l.lagEntries()).setLagSeconds(l.lagSeconds())).build();
  }

  @Override
  public Map<String, FollowerLag> followerLag() {
    try {
      var division = cell.division();
      long lastIndex = division.getRaftLog().getNextIndex() - 1;
      Map<String, Long> match = FollowerMatchIndexes.of(division.getInfo());
      if (match == null) {
        lagTracker.reset(); // a later term's leader starts its own record
        return Map.of();
      }
      return lagTracker.sample(match, lastIndex);
    } catch (IOException e) {
      return Map.of(); // not started yet, or closed
    }
  }

  /** Names the node's web console in Status from now on ({@code url}: {@code http://host:port/console/}, "" none). */
  public void setConsoleUrl(String url) {
    this.consoleUrl = url == null ? "" : url;
  }

  /** Names the node's etcd-compatible services in Status from now on ({@code address}: host:port, "" none). */
  public void setEtcdAddress(String address) {
    this.etcdAddress = address == null ? "" : address;
  }

  /** Reports etcd's keyspace in Status from now on, read from {@code stats} at each Status, while an etcd address is set. */
  public void setKvStats(Supplier<KvStats> stats) {
    this.kvStats = stats;
  }

  @Override
  public Map<String, Long> lastContactMs() {
    try {
      RoleInfoProto role = cell.division().getInfo().getRoleInfoProto();
      Map<String, Long> out = new LinkedHashMap<>();
      if (role.hasLeaderInfo()) {
        for (ServerRpcProto f : role.getLeaderInfo().getFollowerInfoList()) {
          out.put(f.getId().getId().toStringUtf8(), f.getLastRpcElapsedTimeMs());
        }
      } else if (role.hasFollowerInfo() && role.getFollowerInfo().hasLeaderInfo()) {
        ServerRpcProto l = role.getFollowerInfo().getLeaderInfo();
        out.put(l.getId().getId().toStringUtf8(), l.getLastRpcElapsedTimeMs());
      }
      return out;
    } catch (IOException e) {
      return Map.of(); // not started yet, or closed
    }
  }

  @Override
  public RaftLeader raftLeader() {
    try {
      DivisionInfo info = cell.division().getInfo();
      long term;
      RaftPeerId leader;
      do { // read the term twice: a leader id read across a term change would be paired with the wrong term
        term = info.getCurrentTerm();
        leader = info.getLeaderId();
      } while (term != info.getCurrentTerm());
      return new RaftLeader(cell.serverId().toString(), leader == null ? null : leader.toString(), term);
    } catch (IOException e) {
      return null; // not started yet, or closed
    }
  }

  @Override
  public Membership membership() {
    return membership;
  }
}
