package io.regent.server.raft;

import io.regent.api.v1.Member;
import io.regent.api.v1.StatusResponse;
import io.regent.server.api.ClusterView;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;

/** The Raft group as the local Ratis division sees it. */
public final class RaftClusterView implements ClusterView {
  private final RaftServer server;

  /** @param server the local Ratis server of {@link RaftSetup#GROUP_ID} */
  public RaftClusterView(RaftServer server) {
    this.server = server;
  }

  @Override
  public StatusResponse status() {
    try {
      var division = server.getDivision(RaftSetup.GROUP_ID);
      DivisionInfo info = division.getInfo();
      StatusResponse.Builder b = StatusResponse.newBuilder()
          .setNode(server.getId().toString())
          .setLeader(info.getLeaderId() == null ? "" : info.getLeaderId().toString())
          .setTerm(info.getCurrentTerm())
          .setCommitIndex(division.getRaftLog().getLastCommittedIndex())
          .setAppliedIndex(info.getLastAppliedIndex())
          .setRole(info.getCurrentRole().name());
      division.getGroup().getPeers().forEach(p -> b.addMembers(Member.newBuilder().setId(p.getId().toString())
          .setAddress(p.getAddress())));
      return b.build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
