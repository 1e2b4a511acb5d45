package io.regent.server;

import io.grpc.ServerInterceptor;
import io.regent.server.api.ApiServer;
import io.regent.server.concurrent.NodeExecutors;
import io.regent.server.lease.Lessor;
import io.regent.server.metrics.MetricsHttpServer;
import io.regent.server.metrics.RegentMetrics;
import io.regent.server.raft.ApiAddressPublisher;
import io.regent.server.raft.Confirmer;
import io.regent.server.raft.ClientLeaderTracker;
import io.regent.server.raft.LeadershipLease;
import io.regent.server.raft.LocalConfirm;
import io.regent.server.raft.FollowerQueries;
import io.regent.server.raft.LostDataCheck;
import io.regent.server.raft.ProposalRetries;
import io.regent.server.raft.Proposer;
import io.regent.server.raft.RaftClientPool;
import io.regent.server.raft.RaftClusterView;
import io.regent.server.raft.RaftMembership;
import io.regent.server.raft.RaftSetup;
import io.regent.server.raft.RatisProposer;
import io.regent.server.security.NodeSecurity;
import io.regent.server.security.Security;
import io.regent.server.storage.DataDir;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.ratis.ApplyObserver;
import io.regent.statemachine.ratis.RegentStateMachine;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Regent node: a Ratis server running {@link RegentStateMachine}, the leader-side {@link Lessor}, and
 * the public gRPC API. Used by {@code regent server} and, in-process, by tests.
 */
public final class RegentServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RegentServer.class);
  /** Events each node keeps so that Observe streams can resume after an index. */
  static final int EVENT_HISTORY = 10_000;
  /** How often the leader checks lease deadlines, ms. */
  static final long EXPIRY_SCAN_MS = 50;
  /** How often the leader checkpoints each long lease's remaining time, ms (docs/architecture.md §3). */
  static final long CHECKPOINT_INTERVAL_MS = 500;
  /** Ratis clients proposals are spread over (docs/ratis.md §13: more connections, more throughput). */
  static final int RAFT_CLIENTS = 4;
  /** How often the Ratis clients' leader is checked against the local server's, ms. */
  static final long LEADER_POLL_MS = 50;

  private final ServerConfig config;
  private final NodeExecutors executors = new NodeExecutors();
  private final Lessor lessor;
  private final RaftServer raft;
  private final RaftClientPool clients;
  private final ApiServer api;
  private final RegentMetrics metrics;
  private final RaftMembership membership;
  private final RegentStateMachine replica;
  private final Proposer proposer;
  private final Confirmer confirmer;
  private final boolean startedWithoutRaftState;
  private MetricsHttpServer metricsHttp;
  private ApiAddressPublisher publisher;
  private ClientLeaderTracker leaderTracker;

  /**
   * @param bootstrap whether {@code config.peers()} are the initial voters of a new cluster (else the node starts
   *     with an empty peer list: its configuration comes from its storage, or from the leader once a member adds
   *     it; docs/ratis.md §12)
   */
  private RegentServer(ServerConfig config, Security security, boolean bootstrap) throws IOException {
    this.config = config;
    this.startedWithoutRaftState = !Files.exists(new DataDir(config.dataDir()).raftGroup());
    NodeSecurity sec = NodeSecurity.load(security, config.nodeId());
    RaftProperties props = RaftSetup.properties(config);
    RaftGroup group = RaftSetup.group(config);
    RaftGroup initial = bootstrap ? group : RaftGroup.valueOf(RaftSetup.GROUP_ID);
    this.lessor = new Lessor(System::nanoTime, executors.timers(), EXPIRY_SCAN_MS, CHECKPOINT_INTERVAL_MS);
    this.metrics = config.metricsPort() >= 0 ? new RegentMetrics(config.nodeId()) : null;
    RegentStateMachine sm = new RegentStateMachine(new DataDir(config.dataDir()).lmdb(), lessor,
        new EventHub(EVENT_HISTORY), metrics == null ? ApplyObserver.NONE : metrics.applyObserver(),
        config.unsafeSkipRelease());
    this.raft = RaftServer.newBuilder().setServerId(RaftPeerId.valueOf(config.nodeId())).setGroup(initial)
        .setProperties(props).setParameters(sec.raftParameters()).setStateMachine(sm).setOption(RaftStorage.StartupOption.RECOVER).build();
    this.clients = new RaftClientPool(RAFT_CLIENTS, leader -> proposalClient(props, sec, group, leader),
        config.requestTimeoutMs(), executors);
    RatisProposer proposer = new RatisProposer(clients, config.requestTimeoutMs());
    lessor.setProposer(proposer);
    List<ServerInterceptor> interceptors = new ArrayList<>();
    sec.authorizer().ifPresent(interceptors::add);
    if (metrics != null) {
      interceptors.add(metrics.grpcInterceptor()); // added last, runs first: it also times refused calls
    }
    LeadershipLease lease = config.confirm().strict() ? null : new LeadershipLease(System::nanoTime,
        leadership(), config.electionTimeoutMinMs(), config.confirm().leaseFactor());
    Confirmer confirmer = lease == null ? new Confirmer(proposer)
        : new Confirmer(proposer, lease, new LocalConfirm(sm, lessor, this::commitIndex)::confirm, proposer);
    sm.setQueryHandler(new FollowerQueries(confirmer)::answer);
    this.membership = new RaftMembership(raft, () -> RaftClient.newBuilder()
        .setProperties(RaftSetup.adminProperties(props)).setParameters(sec.raftParameters())
        .setRaftGroup(currentGroup(group))
        .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(20,
            TimeDuration.valueOf(250, TimeUnit.MILLISECONDS)))
        .build(), proposer, confirmer, sm, RaftSetup.ADMIN_TIMEOUT_MS, lease, executors.blocking());
    this.replica = sm;
    this.proposer = proposer;
    this.confirmer = confirmer;
    this.api = new ApiServer(new InetSocketAddress(config.apiHost(), config.apiPort()), sec.apiCredentials(),
        new RaftClusterView(raft, membership, new DataDir(config.dataDir()).lmdbFile()), sm, proposer, confirmer, config.minTtlMs(),
        config.unsafeLocalGrants(), config.limits(), executors,
        interceptors.toArray(ServerInterceptor[]::new));
    if (metrics != null) {
      metrics.bindReplica(sm);
      metrics.bindRaft(raft, RaftSetup.GROUP_ID, executors.timers());
    }
    if (config.confirm().unsafe()) {
      LOG.warn("UNSAFE: --unsafe-leadership-lease-factor {}: this node may answer as leader after another leader "
          + "was elected (negative control)", config.confirm().leaseFactor());
    }
    if (config.unsafeLocalGrants()) {
      LOG.warn("UNSAFE: --unsafe-local-grants is on; this node grants names without Raft (negative control)");
    }
  }

  /** The local Raft log's commit index, or {@code Long.MAX_VALUE} when the server is not up (no local answer). */
  private long commitIndex() {
    try {
      return raft.getDivision(RaftSetup.GROUP_ID).getRaftLog().getLastCommittedIndex();
    } catch (IOException e) {
      return Long.MAX_VALUE;
    }
  }

  /** The local Raft server's term, and whether it is its ready leader (the leadership lease asks). */
  private LeadershipLease.Leadership leadership() {
    return new LeadershipLease.Leadership() {
      @Override
      public long readyTerm() {
        try {
          var info = raft.getDivision(RaftSetup.GROUP_ID).getInfo();
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
          return raft.getDivision(RaftSetup.GROUP_ID).getInfo().getCurrentTerm();
        } catch (IOException e) {
          return -1;
        }
      }
    };
  }

  /**
   * A Ratis client for proposals, for the group as this node knows it now, sending first to {@code leader} if
   * that group names it (a Ratis client started at a peer outside its group fails every call; the leader may
   * have been removed since it was learnt).
   */
  private RaftClient proposalClient(RaftProperties props, NodeSecurity sec, RaftGroup startup, RaftPeerId leader) {
    RaftGroup now = currentGroup(startup);
    return RaftClient.newBuilder().setProperties(props).setParameters(sec.raftParameters()).setRaftGroup(now)
        .setLeaderId(leader != null && now.getPeer(leader) != null ? leader : null)
        .setRetryPolicy(ProposalRetries.within(config.requestTimeoutMs()))
        .build();
  }

  /**
   * The group as this node's Raft server knows it now (it follows membership changes), else {@code initial}
   * (this node and its startup peers: a joining node knows no group until a member adds it). A peer named in
   * this node's startup peers keeps the address given there: the configuration in the log carries the
   * addresses the proposing leader used, and this node may reach a peer by another route (a proxy, another
   * interface).
   */
  private RaftGroup currentGroup(RaftGroup initial) {
    RaftGroup now;
    try {
      now = raft.getDivision(RaftSetup.GROUP_ID).getGroup();
    } catch (IOException | RuntimeException e) {
      return initial; // not started yet
    }
    if (now.getPeers().isEmpty()) {
      return initial;
    }
    List<RaftPeer> peers = new ArrayList<>();
    for (RaftPeer p : now.getPeers()) {
      RaftPeer own = initial.getPeer(p.getId());
      peers.add(own == null ? p : RaftPeer.newBuilder(p).setAddress(own.getAddress()).build());
    }
    return RaftGroup.valueOf(now.getGroupId(), peers);
  }

  /** Builds and starts a node with plaintext ports and no permission checks: Raft first, then the API. */
  public static RegentServer start(ServerConfig config) throws IOException {
    return start(config, Security.NONE);
  }

  /**
   * Builds and starts a node with TLS and permissions as {@code security} says (docs/security.md).
   *
   * @throws IOException also when a certificate, key or permissions file cannot be read
   */
  public static RegentServer start(ServerConfig config, Security security) throws IOException {
    refuseIfDataLost(config, security);
    return start(new RegentServer(config, security, true));
  }

  /**
   * Before anything is written: a first voter starting with no Raft state whose peers saw it take part has
   * lost its data, and must be replaced instead ({@link LostDataCheck}).
   */
  private static void refuseIfDataLost(ServerConfig config, Security security) throws IOException {
    if (Files.exists(new DataDir(config.dataDir()).raftGroup())) {
      return;
    }
    LostDataCheck.refuseIfRemembered(RaftPeerId.valueOf(config.nodeId()), RaftSetup.group(config),
        RaftSetup.properties(config), NodeSecurity.load(security, config.nodeId()).raftParameters(),
        config.dataDir().toString());
  }

  /**
   * Builds and starts a node that is not one of a new cluster's initial voters: a node restarting on the data
   * of a member that was added later, or a new node waiting to be added ({@code regent member add}, or
   * {@link Joiner}). It starts with an empty peer list and the cluster's group id; {@code config.peers()}
   * names only this node's Raft address.
   */
  public static RegentServer startMember(ServerConfig config, Security security) throws IOException {
    return start(new RegentServer(config, security, false));
  }

  /** {@link #startMember(ServerConfig, Security)} with plaintext ports and no permission checks. */
  public static RegentServer startMember(ServerConfig config) throws IOException {
    return startMember(config, Security.NONE);
  }

  private static RegentServer start(RegentServer s) throws IOException {
    ServerConfig config = s.config;
    s.raft.start();
    s.leaderTracker = ClientLeaderTracker.start(s.raft, s.clients, LEADER_POLL_MS, s.confirmer::leaderChanged,
        s.executors.timers());
    s.api.start();
    String raftAddress = config.peers().get(config.nodeId());
    s.publisher = ApiAddressPublisher.start(s.raft, s.replica, s.proposer,
        ApiAddressPublisher.advertised(config.apiHost(), s.api.port(), raftAddress), s.executors.timers());
    if (s.metrics != null) {
      s.metricsHttp = MetricsHttpServer.start(config.apiHost(), config.metricsPort(), s.metrics,
          s.executors.blocking());
      LOG.info("node {} serving /metrics, /healthz and /readyz on {}:{}", config.nodeId(), config.apiHost(),
          s.metricsHttp.port());
    }
    LOG.info("node {} serving the API on {}:{}, Raft on {}", config.nodeId(), config.apiHost(), s.api.port(),
        config.peers().get(config.nodeId()));
    return s;
  }

  /** Port of the public gRPC API. */
  public int apiPort() {
    return api.port();
  }

  /** Port of the metrics and health endpoint, or -1 when it has none. */
  public int metricsPort() {
    return metricsHttp == null ? -1 : metricsHttp.port();
  }

  /** Whether this node started on a data directory with no Raft state (a new node, or one whose data is gone). */
  public boolean startedWithoutRaftState() {
    return startedWithoutRaftState;
  }

  /** This node's configuration. */
  public ServerConfig config() {
    return config;
  }

  /** This node's own executors (docs/architecture.md §10): tests saturate its blocking pool through it. */
  public NodeExecutors executors() {
    return executors;
  }

  /** The underlying Ratis server (status, tests). */
  public RaftServer raft() {
    return raft;
  }

  @Override
  public void close() throws Exception {
    if (metricsHttp != null) {
      metricsHttp.close();
    }
    if (metrics != null) {
      metrics.close();
    }
    if (publisher != null) {
      publisher.close();
    }
    api.close();
    if (leaderTracker != null) {
      leaderTracker.close();
    }
    clients.close();
    raft.close();
    lessor.close();
    executors.close();
  }
}
