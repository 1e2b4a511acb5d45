package io.regent.server.cell;

import io.regent.server.batch.ProposalBatcher;
import io.regent.server.concurrent.NodeExecutors;
import io.regent.server.config.ServerConfig;
import io.regent.server.lease.Lessor;
import io.regent.server.ratis.ApiAddressPublisher;
import io.regent.server.ratis.DivisionWatch;
import io.regent.server.ratis.RaftHost;
import io.regent.server.ratis.RaftNode;
import io.regent.server.ratis.RaftSetup;
import io.regent.server.ratis.TimingPublisher;
import io.regent.server.replication.Proposer;
import io.regent.server.storage.CellDir;
import io.regent.statemachine.ratis.RegentStateMachine;
import java.util.function.Consumer;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;

/**
 * One cell on this node (docs/architecture.md §14, "Cells"): the cell's state machine and LMDB environment, its
 * leader-side {@link Lessor}, its Raft side ({@link RaftNode}), the batcher its client operations go through, and
 * the records this node publishes in it. A node without cells has one, cell 0. Each cell has its own event
 * history, expiry scan and checkpoints, so one cell's flood or fault stays its own.
 */
public final class Cell implements AutoCloseable {
  /** Entries of client operations unanswered at once before operations wait to be batched. */
  static final int BATCH_IN_FLIGHT = 2;

  private final ServerConfig config;
  private final NodeExecutors executors;
  private final Lessor lessor;
  private final RegentStateMachine replica;
  private final RaftNode raft;
  private final Proposer operations;
  private final DivisionWatch watch;
  private ApiAddressPublisher publisher;
  private TimingPublisher timingPublisher;

  /**
   * Builds the rest of the cell around its replica; starts nothing (the {@link RaftHost} starts its division with
   * the server).
   *
   * @param dir the cell's paths in the data directory
   * @param built the cell's lessor and state machine, which {@code host} runs
   * @param onStopped told once, on a timer thread, why the cell's division stopped for good
   * @param first cell 0, whose Raft side probes the voters' clocks for every cell (the cells have the same voters);
   *     null for cell 0 itself
   */
  public Cell(CellDir dir, CellReplica built, ServerConfig config, RaftProperties props, Parameters params,
              RaftHost host, NodeExecutors executors, Consumer<String> onStopped, Cell first) {
    int id = dir.cell();
    this.config = config;
    this.executors = executors;
    this.lessor = built.lessor();
    this.replica = built.machine();
    this.raft = new RaftNode(config, props, params, host.cell(id), RaftSetup.group(config, id), replica, lessor,
        dir.lmdbFile(), executors, first == null ? null : first.raft().clockRates().orElse(null));
    Proposer proposer = raft.proposer();
    lessor.setProposer(proposer);
    // client operations are batched; the node's own entries (expiries, rounds, membership) go alone
    this.operations = config.proposalBatch() == 1 ? proposer
        : new ProposalBatcher(proposer, config.proposalBatch(), RaftSetup.CELL_BATCH_BYTES, BATCH_IN_FLIGHT,
            raft.entryFormat());
    this.watch = new DivisionWatch(raft.cell(), replica::storageFault, onStopped);
  }

  /**
   * Starts what runs once the division is up: the watch over it, the proposal clients' leader tracking, and the
   * records this node publishes in the cell (its API address, its timing), then the clock probes.
   *
   * @param advertisedApi this node's API address as clients reach it
   */
  public void start(String advertisedApi) {
    watch.start(executors.timers());
    raft.startLeaderTracker();
    publisher = ApiAddressPublisher.start(raft.cell(), replica, raft.proposer(), advertisedApi, executors.timers());
    timingPublisher = TimingPublisher.start(raft.cell(), replica, raft.proposer(), raft.timing(),
        config.maxEntryVersion(), executors.timers());
    raft.startClockProbes();
  }

  /** The cell's state machine: its state, its events. */
  public RegentStateMachine replica() {
    return replica;
  }

  /** The cell's Raft side. */
  public RaftNode raft() {
    return raft;
  }

  /** Where the cell's client operations go: batched unless {@code --proposal-batch 1}. */
  public Proposer operations() {
    return operations;
  }

  /** Why the cell's division is not live, or empty while it is ({@link DivisionWatch#notLiveReason}). */
  public java.util.Optional<String> notLiveReason() {
    return watch.notLiveReason();
  }

  /** Stops the watch first (the division closing with the server is no failure), then the rest of the cell. */
  public void stopWatching() {
    watch.close();
  }

  /** Closes the publishers, the Raft side's clients and the lessor; the {@link RaftHost} closes the division. */
  @Override
  public void close() throws Exception {
    watch.close();
    if (publisher != null) {
      publisher.close();
    }
    if (timingPublisher != null) {
      timingPublisher.close();
    }
    raft.close();
    lessor.close();
  }
}
