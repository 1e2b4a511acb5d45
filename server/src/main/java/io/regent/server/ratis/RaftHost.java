package io.regent.server.ratis;

import io.regent.server.config.ServerConfig;
import java.io.IOException;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupManagementRequest;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachine;

/**
 * This node's one Ratis server and the cells' divisions on it (docs/architecture.md §14, "Cells"): each cell is a
 * Ratis group with a state machine of its own, all groups on the same server, its port and its storage directory.
 * Cell 0 starts with the server, as the one group of a node without cells; the others are added once it runs,
 * unless Ratis already found them in its storage.
 */
public final class RaftHost implements AutoCloseable {
  private final ServerConfig config;
  private final boolean bootstrap;
  private final int cells;
  private final RaftServer server;
  private final AtomicLong callIds = new AtomicLong();

  /**
   * Builds the server; starts nothing.
   *
   * @param bootstrap whether {@code config.peers()} are the initial voters of a new cluster (else every cell's
   *     group starts with no peers: its configuration comes from storage, or from the cell's leader once it adds
   *     this node; docs/ratis.md §12)
   * @param stateMachines each cell's state machine, by the cell's group ({@link RaftSetup#groupId}), for cells
   *     0..n - 1; Ratis asks for the machine of every group it finds in its storage, and a group no cell claims is
   *     refused
   * @throws IOException when Ratis cannot build its server
   */
  public RaftHost(ServerConfig config, RaftProperties props, Parameters params, boolean bootstrap,
                  Map<RaftGroupId, ? extends StateMachine> stateMachines) throws IOException {
    this.config = config;
    this.bootstrap = bootstrap;
    this.cells = stateMachines.size();
    Map<RaftGroupId, StateMachine> machines = Map.copyOf(stateMachines);
    StateMachine.Registry registry = id -> {
      StateMachine sm = machines.get(id);
      if (sm == null) { // DataDir.claimCells refuses such a directory before Ratis starts
        throw new IllegalStateException("Raft group " + id + " belongs to no cell of this node");
      }
      return sm;
    };
    this.server = RaftServer.newBuilder().setServerId(RaftPeerId.valueOf(config.nodeId()))
        .setGroup(startupGroup(0)).setProperties(props).setParameters(params).setStateMachineRegistry(registry)
        .setOption(RaftStorage.StartupOption.RECOVER).build();
  }

  private RaftGroup startupGroup(int cell) {
    return bootstrap ? RaftSetup.group(config, cell) : RaftGroup.valueOf(RaftSetup.groupId(cell));
  }

  /**
   * Starts the server (it recovers every group in its storage and runs each state machine's start-up check), then
   * adds each cell's group it did not find.
   *
   * @throws IOException when the server cannot start or a cell's group cannot be added
   */
  public void start() throws IOException {
    server.start();
    Set<RaftGroupId> present = new HashSet<>();
    server.getGroupIds().forEach(present::add);
    for (int c = 1; c < cells; c++) {
      RaftGroup group = startupGroup(c);
      if (present.contains(group.getGroupId())) {
        continue;
      }
      RaftClientReply reply = server.groupManagement(GroupManagementRequest.newAdd(ClientId.randomId(),
          server.getId(), callIds.incrementAndGet(), group));
      if (!reply.isSuccess()) {
        throw new IOException("cell " + c + ": Ratis did not add its group " + group.getGroupId(),
            reply.getException());
      }
    }
  }

  /** The division of cell {@code cell}, 0..cells - 1. */
  public CellDivision cell(int cell) {
    return new CellDivision(server, RaftSetup.groupId(cell));
  }

  /** The underlying Ratis server. */
  public RaftServer server() {
    return server;
  }

  /** Closes the server and with it every cell's division. */
  @Override
  public void close() throws IOException {
    server.close();
  }
}
