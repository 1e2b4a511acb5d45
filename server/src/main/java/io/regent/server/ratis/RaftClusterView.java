package io.regent.server.ratis;

import io.regent.api.v1.StatusResponse;
import io.regent.client.RegentVersion;
import io.regent.server.membership.RaftLeader;
import io.regent.server.membership.ClusterView;
import io.regent.server.membership.Membership;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;

/** The Raft group as the local Ratis division sees it (its current configuration, not the startup peers). */
public final class RaftClusterView implements ClusterView {
  private final RaftServer server;
  private final RaftMembership membership;
  private final Path stateFile;
  private volatile String consoleUrl = "";
  private volatile String etcdAddress = "";

  /**
   * @param server the local Ratis server of {@link RaftSetup#GROUP_ID}
   * @param membership the members and their changes
   */
  public RaftClusterView(RaftServer server, RaftMembership membership) {
    this(server, membership, null);
  }

  /** Like the two-argument constructor, reporting the size of {@code stateFile} (null: 0) in Status. */
  public RaftClusterView(RaftServer server, RaftMembership membership, Path stateFile) {
    this.server = server;
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
      var division = server.getDivision(RaftSetup.GROUP_ID);
      DivisionInfo info = division.getInfo();
      return StatusResponse.newBuilder()
          .setNode(server.getId().toString())
          .setLeader(info.getLeaderId() == null ? "" : info.getLeaderId().toString())
          .setTerm(info.getCurrentTerm())
          .setCommitIndex(division.getRaftLog().getLastCommittedIndex())
          .setAppliedIndex(info.getLastAppliedIndex())
          .setRole(info.getCurrentRole().name())
          .addAllMembers(membership.members())
          .setVersion(RegentVersion.current())
          .setDbSizeBytes(stateBytes())
          .setConsoleUrl(consoleUrl)
          .setEtcdAddress(etcdAddress)
          .build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
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

  @Override
  public Map<String, Long> lastContactMs() {
    try {
      RoleInfoProto role = server.getDivision(RaftSetup.GROUP_ID).getInfo().getRoleInfoProto();
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
      DivisionInfo info = server.getDivision(RaftSetup.GROUP_ID).getInfo();
      long term;
      RaftPeerId leader;
      do { // read the term twice: a leader id read across a term change would be paired with the wrong term
        term = info.getCurrentTerm();
        leader = info.getLeaderId();
      } while (term != info.getCurrentTerm());
      return new RaftLeader(server.getId().toString(), leader == null ? null : leader.toString(), term);
    } catch (IOException e) {
      return null; // not started yet, or closed
    }
  }

  @Override
  public Membership membership() {
    return membership;
  }
}
