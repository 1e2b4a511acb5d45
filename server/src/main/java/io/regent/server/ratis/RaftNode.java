package io.regent.server.ratis;

import io.regent.server.concurrent.NodeExecutors;
import io.regent.server.config.ServerConfig;
import io.regent.server.confirm.ClockRateCheck;
import io.regent.server.confirm.ClockRateRule;
import io.regent.server.confirm.Confirmer;
import io.regent.server.confirm.LeadershipLease;
import io.regent.server.confirm.LocalConfirm;
import io.regent.server.replication.EntryFormat;
import io.regent.server.replication.Proposer;
import io.regent.statemachine.ratis.RegentStateMachine;
import io.regent.statemachine.replica.LeaseTimekeeper;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.util.TimeDuration;

/**
 * One cell's Raft side on this node (docs/architecture.md §14), built in one place and owned until {@link #close}:
 * the cell's division as the node sees it, the pool of Ratis clients proposals go through and the proposer
 * over them, the leadership confirmations, the membership changes and the cluster view, and the clock probes.
 * The confirmations are built here because they read the division and the membership changes confirm
 * leadership before each read of the configuration. {@code RegentServer} wires these to the API and decides
 * when each starts and stops.
 */
public final class RaftNode implements AutoCloseable {
  /**
   * Ratis clients a node's proposals are spread over (docs/ratis.md §13: more connections, more throughput): a
   * node of several cells shares them out, at least one per cell ({@link #clientsPerCell}).
   */
  static final int RAFT_CLIENTS = 4;
  /** How often the Ratis clients' leader is checked against the local server's, ms. */
  static final long LEADER_POLL_MS = 50;

  private final ServerConfig config;
  private final NodeExecutors executors;
  private final CellDivision cell;
  private final RaftTiming timing;
  private final LocalDivision division;
  private final RaftClientPool clients;
  private final RatisProposer proposer;
  private final VoterFormats entryFormat;
  /** The voters' clock rates the lease depends on, or null under {@code --confirm strict}. */
  private final ClockRateCheck clockRates;
  /** Whether this cell's Raft side probes the voters' clocks itself (else another cell's does). */
  private final boolean probes;
  private final ClockReadings clockReadings = new ClockReadings(System::nanoTime);
  /** This node's leadership lease, or null under {@code --confirm strict}. */
  private final LeadershipLease lease;
  private final Confirmer confirmer;
  private final RaftClusterView clusterView;
  private final Function<RaftGroup, RaftClient> probeClients;
  private ClientLeaderTracker leaderTracker;
  private ClockProber clockProber;

  /**
   * Builds what talks to the cell's division; starts nothing (the {@link RaftHost} starts the server).
   *
   * @param config this node's settings
   * @param props this node's Ratis properties ({@link RaftSetup#properties})
   * @param params this node's Raft parameters (TLS)
   * @param cell the cell's division on this node's Ratis server
   * @param group the cell's group with the addresses given at start-up
   * @param sm the cell's state machine, which the server runs; its start-up check and query handlers are set here
   * @param leases the cell's leader-side lease clock a local confirmation reads
   * @param stateFile the cell's LMDB data file (its size in Status)
   * @param executors the node's executors (docs/architecture.md §10)
   * @param probedElsewhere the voters' clock rates as another cell's Raft side probes them (cell 0's: every cell has
   *     the same voters, docs/architecture.md §14), or null to probe them here
   */
  public RaftNode(ServerConfig config, RaftProperties props, Parameters params, CellDivision cell, RaftGroup group,
                  RegentStateMachine sm, LeaseTimekeeper leases, Path stateFile, NodeExecutors executors,
                  ClockRateCheck probedElsewhere) {
    this.config = config;
    this.executors = executors;
    this.timing = RaftTiming.of(props);
    this.cell = cell;
    sm.setStartupCheck(replica -> timing.checkAgainst(replica.read(txn -> txn.memberTimings().get(config.nodeId())),
        config));
    LocalDivision division = new LocalDivision(cell, group);
    this.division = division;
    this.clients = new RaftClientPool(clientsPerCell(config.cells()),
        leader -> division.proposalClient(props, params, leader, config.requestTimeoutMs()),
        config.requestTimeoutMs(), executors);
    this.entryFormat = new VoterFormats(config.nodeId(), config.maxEntryVersion(), division::voterIds, sm);
    this.proposer = new RatisProposer(clients, config.requestTimeoutMs(), config.electionTimeoutMinMs(),
        executors.replies(), entryFormat);
    this.probeClients = g -> RaftClient.newBuilder().setProperties(props).setParameters(params)
        .setRaftGroup(g).setRetryPolicy(RetryPolicies.noRetry()).build();
    sm.setStaleQueryHandler(clockReadings::answer);
    this.probes = probedElsewhere == null;
    this.clockRates = config.confirm().strict() ? null : probedElsewhere != null ? probedElsewhere
        : new ClockRateCheck(config.nodeId(), division::voterIds, System::nanoTime, ClockRateRule.DEFAULT);
    this.lease = config.confirm().strict() ? null : new LeadershipLease(System::nanoTime,
        division.leadership(), new ClusterTiming(config.nodeId(), timing, division::voterIds, sm), clockRates,
        division.acknowledgers(config.nodeId()), config.confirm().leaseFactor());
    this.confirmer = lease == null ? new Confirmer(proposer)
        : new Confirmer(proposer, lease, new LocalConfirm(sm, leases, division::commitIndex)::confirm, proposer);
    sm.setQueryHandler(new FollowerQueries(confirmer)::answer);
    RaftMembership membership = new RaftMembership(cell, () -> RaftClient.newBuilder()
        .setProperties(RaftSetup.adminProperties(props)).setParameters(params)
        .setRaftGroup(division.currentGroup())
        .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(20,
            TimeDuration.valueOf(250, TimeUnit.MILLISECONDS)))
        .build(), proposer, confirmer, sm, RaftSetup.ADMIN_TIMEOUT_MS, lease, executors.blocking());
    this.clusterView = new RaftClusterView(cell, membership, stateFile);
  }

  /**
   * The Ratis clients of each of {@code cells} cells: {@link #RAFT_CLIENTS} shared out, at least one. Each client is
   * gRPC connections and threads of its own, so their number grows with the cells only past four cells.
   */
  static int clientsPerCell(int cells) {
    return Math.max(1, RAFT_CLIENTS / cells);
  }

  /** Starts pointing the proposal clients at the leader; the confirmer hears of each new leader. */
  public void startLeaderTracker() {
    leaderTracker = ClientLeaderTracker.start(cell, clients, LEADER_POLL_MS, confirmer::leaderChanged,
        executors.timers());
  }

  /** Starts probing the voters' clocks (docs/architecture.md §8.1, "clock rates"); none under {@code --confirm strict}. */
  public void startClockProbes() {
    if (clockRates != null && probes) {
      clockProber = ClockProber.start(config.nodeId(), division::currentGroup, probeClients, clockRates,
          System::nanoTime, executors);
    }
  }

  /** The cell's division on this node. */
  public CellDivision cell() {
    return cell;
  }

  /** This node's Raft timing, as its Ratis properties set it. */
  public RaftTiming timing() {
    return timing;
  }

  /** Replicates single entries through the Ratis clients (the node's own entries; client operations are batched). */
  public Proposer proposer() {
    return proposer;
  }

  /**
   * The entry version every voter applies now (docs/operations.md "Upgrades"): the proposer writes it, the batcher
   * batches from 2.
   */
  public EntryFormat entryFormat() {
    return entryFormat;
  }

  /** The leadership confirmations (docs/architecture.md §8). */
  public Confirmer confirmer() {
    return confirmer;
  }

  /** The cluster as the local division sees it, with its membership changes. */
  public RaftClusterView clusterView() {
    return clusterView;
  }

  /** This node's leadership lease (docs/architecture.md §8.1), empty under {@code --confirm strict}. */
  public Optional<LeadershipLease> leadershipLease() {
    return Optional.ofNullable(lease);
  }

  /** This node's view of its peers' clock rates, empty under {@code --confirm strict}. */
  public Optional<ClockRateCheck> clockRates() {
    return Optional.ofNullable(clockRates);
  }

  /** The clock this node reports to its peers' clock probes. */
  public ClockReadings clockReadings() {
    return clockReadings;
  }

  /** Stops leader tracking and clock probes, then closes the Ratis clients (the {@link RaftHost} closes the server). */
  @Override
  public void close() throws Exception {
    if (leaderTracker != null) {
      leaderTracker.close();
    }
    if (clockProber != null) {
      clockProber.close();
    }
    clients.close();
  }
}
