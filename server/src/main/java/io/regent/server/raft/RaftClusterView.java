package io.regent.server.raft;

import io.regent.api.v1.StatusResponse;
import io.regent.server.api.ClusterView;
import io.regent.server.api.Membership;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;

/** The Raft group as the local Ratis division sees it (its current configuration, not the startup peers). */
public final class RaftClusterView implements ClusterView {
  private final RaftServer server;
  private final RaftMembership membership;

  /**
   * @param server the local Ratis server of {@link RaftSetup#GROUP_ID}
   * @param membership the members and their changes
   */
  public RaftClusterView(RaftServer server, RaftMembership membership) {
    this.server = server;
    this.membership = membership;
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
          .build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public Membership membership() {
    return membership;
  }
}
