package io.regent.server.ratis;

import java.io.IOException;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;

/**
 * One cell's division on this node (docs/architecture.md §14, "Cells"): the node's one Ratis server and the group
 * id of the cell, which is how everything that reads or drives a division finds it. With one cell the group is
 * {@link RaftSetup#GROUP_ID}.
 *
 * @param server this node's Ratis server, which runs every cell's division
 * @param groupId the cell's Raft group
 */
public record CellDivision(RaftServer server, RaftGroupId groupId) {
  /**
   * The division now.
   *
   * @throws IOException when the server is not started yet, is closed, or has not added the cell's group yet
   */
  public RaftServer.Division division() throws IOException {
    return server.getDivision(groupId);
  }

  /** This node's id. */
  public RaftPeerId serverId() {
    return server.getId();
  }
}
