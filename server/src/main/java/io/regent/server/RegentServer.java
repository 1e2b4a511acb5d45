package io.regent.server;

import io.grpc.ServerInterceptor;
import io.regent.server.api.ApiServer;
import io.regent.server.batch.ProposalBatcher;
import io.regent.server.concurrent.NodeExecutors;
import io.regent.server.config.ServerConfig;
import io.regent.server.confirm.ClockRateCheck;
import io.regent.server.confirm.ClockRateRule;
import io.regent.server.confirm.Confirmer;
import io.regent.server.confirm.LeadershipLease;
import io.regent.server.confirm.LocalConfirm;
import io.regent.server.console.Console;
import io.regent.server.etcd.EtcdGateway;
import io.regent.server.lease.Lessor;
import io.regent.server.limits.Admission;
import io.regent.server.metrics.MetricsHttpServer;
import io.regent.server.metrics.RegentMetrics;
import io.regent.server.ratis.ApiAddressPublisher;
import io.regent.server.ratis.ClientLeaderTracker;
import io.regent.server.ratis.ClockProber;
import io.regent.server.ratis.ClockReadings;
import io.regent.server.ratis.ClusterTiming;
import io.regent.server.ratis.DivisionWatch;
import io.regent.server.ratis.FollowerQueries;
import io.regent.server.ratis.LocalDivision;
import io.regent.server.ratis.LostDataCheck;
import io.regent.server.ratis.RaftClientPool;
import io.regent.server.ratis.RaftClusterView;
import io.regent.server.ratis.RaftMembership;
import io.regent.server.ratis.RaftSetup;
import io.regent.server.ratis.RaftTiming;
import io.regent.server.ratis.RatisProposer;
import io.regent.server.ratis.TimingPublisher;
import io.regent.server.replication.Proposer;
import io.regent.server.security.ClientIdentity;
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
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroup;
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
  /** Bytes of the operations of one batch entry, about (docs/architecture.md §2.6). */
  static final int BATCH_MAX_BYTES = 1 << 20;
  /** Entries of client operations unanswered at once before operations wait to be batched. */
  static final int BATCH_IN_FLIGHT = 2;
  /**
   * Exit code of {@code regent server} when its Raft division stopped for good, e.g. on a full data directory
   * (docs/operations.md, "Disk full"): a supervisor restarts it and it catches up.
   */
  public static final int EXIT_DIVISION_STOPPED = 6;
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
  private final LeadershipLease lease;
  /** The voters' clock rates the lease depends on, or null under {@code --confirm strict}. */
  private final ClockRateCheck clockRates;
  private final ClockReadings clockReadings = new ClockReadings(System::nanoTime);
  private final LocalDivision division;
  private final Function<RaftGroup, RaftClient> probeClients;
  private ClockProber clockProber;
  private final boolean startedWithoutRaftState;
  private final RaftClusterView clusterView;
  private final Console console;
  private MetricsHttpServer metricsHttp;
  private ApiAddressPublisher publisher;
  private TimingPublisher timingPublisher;
  private final RaftTiming timing;
  private EtcdGateway etcd;
  private ClientLeaderTracker leaderTracker;
  private final DivisionWatch divisionWatch;
  private Consumer<String> onDivisionStopped; // guarded by this, as stoppedReason
  private String stoppedReason;

  /**
   * @param bootstrap whether {@code config.peers()} are the initial voters of a new cluster (else the node starts
   *     with an empty peer list: its configuration comes from its storage, or from the leader once a member adds
   *     it; docs/ratis.md §12)
   * @param props this node's Ratis properties ({@link RaftSetup#properties}), computed before any resource is taken:
   *     a refused setting leaves nothing to close
   */
  private RegentServer(ServerConfig config, Security security, boolean bootstrap, RaftProperties props)
      throws IOException {
    this.config = config;
    if (config.etcdPort() >= 0 && (security.api() != null || security.permissions() != null)) {
      // the gateway reaches the API over plaintext loopback, where no client certificate names the caller
      throw new IllegalArgumentException("the etcd port serves plaintext without permissions: --etcd-port cannot "
          + "be combined with TLS or a permissions file (docs/migrating.md)");
    }
    this.startedWithoutRaftState = !Files.exists(new DataDir(config.dataDir()).raftGroup());
    NodeSecurity sec = NodeSecurity.load(security, config.nodeId());
    this.timing = RaftTiming.of(props);
    RaftGroup group = RaftSetup.group(config);
    RaftGroup initial = bootstrap ? group : RaftGroup.valueOf(RaftSetup.GROUP_ID);
    this.lessor = new Lessor(System::nanoTime, executors.timers(), EXPIRY_SCAN_MS, CHECKPOINT_INTERVAL_MS);
    this.metrics = config.metricsPort() >= 0 ? new RegentMetrics(config.nodeId()) : null;
    RegentStateMachine sm = new RegentStateMachine(new DataDir(config.dataDir()).lmdb(), lessor,
        new EventHub(EVENT_HISTORY), metrics == null ? ApplyObserver.NONE : metrics.applyObserver(),
        config.unsafeSkipRelease());
    sm.setStartupCheck(replica -> timing.checkAgainst(replica.read(txn -> txn.memberTimings().get(config.nodeId())),
        config));
    this.raft = RaftServer.newBuilder().setServerId(RaftPeerId.valueOf(config.nodeId())).setGroup(initial)
        .setProperties(props).setParameters(sec.raftParameters()).setStateMachine(sm).setOption(RaftStorage.StartupOption.RECOVER).build();
    LocalDivision division = new LocalDivision(raft, group);
    this.clients = new RaftClientPool(RAFT_CLIENTS,
        leader -> division.proposalClient(props, sec.raftParameters(), leader, config.requestTimeoutMs()),
        config.requestTimeoutMs(), executors);
    RatisProposer proposer = new RatisProposer(clients, config.requestTimeoutMs(), config.electionTimeoutMinMs(),
        executors.replies());
    lessor.setProposer(proposer);
    List<ServerInterceptor> interceptors = new ArrayList<>();
    sec.authorizer().ifPresent(interceptors::add);
    if (metrics != null) {
      interceptors.add(metrics.grpcInterceptor()); // added last, runs first: it also times refused calls
    }
    this.division = division;
    this.probeClients = g -> RaftClient.newBuilder().setProperties(props).setParameters(sec.raftParameters())
        .setRaftGroup(g).setRetryPolicy(RetryPolicies.noRetry()).build();
    sm.setStaleQueryHandler(clockReadings::answer);
    this.clockRates = config.confirm().strict() ? null
        : new ClockRateCheck(config.nodeId(), division::voterIds, System::nanoTime, ClockRateRule.DEFAULT);
    LeadershipLease lease = config.confirm().strict() ? null : new LeadershipLease(System::nanoTime,
        division.leadership(), new ClusterTiming(config.nodeId(), timing, division::voterIds, sm), clockRates,
        division.acknowledgers(config.nodeId()), config.confirm().leaseFactor());
    Confirmer confirmer = lease == null ? new Confirmer(proposer)
        : new Confirmer(proposer, lease, new LocalConfirm(sm, lessor, division::commitIndex)::confirm, proposer);
    sm.setQueryHandler(new FollowerQueries(confirmer)::answer);
    this.membership = new RaftMembership(raft, () -> RaftClient.newBuilder()
        .setProperties(RaftSetup.adminProperties(props)).setParameters(sec.raftParameters())
        .setRaftGroup(division.currentGroup())
        .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(20,
            TimeDuration.valueOf(250, TimeUnit.MILLISECONDS)))
        .build(), proposer, confirmer, sm, RaftSetup.ADMIN_TIMEOUT_MS, lease, executors.blocking());
    this.replica = sm;
    this.proposer = proposer;
    this.confirmer = confirmer;
    this.lease = lease;
    // client operations are batched; the node's own entries (expiries, rounds, membership) go alone
    Proposer operations = config.proposalBatch() == 1 ? proposer
        : new ProposalBatcher(proposer, config.proposalBatch(), BATCH_MAX_BYTES, BATCH_IN_FLIGHT);
    this.clusterView = new RaftClusterView(raft, membership, new DataDir(config.dataDir()).lmdbFile());
    this.console = metrics != null && config.console()
        ? new Console(clusterView, sm, confirmer, metrics::notReadyReason) : null;
    Admission admission = new Admission(config.limits().admission(), ClientIdentity::of, System::nanoTime);
    this.api = new ApiServer(new InetSocketAddress(config.apiHost(), config.apiPort()), sec.apiCredentials(),
        clusterView, sm, operations, confirmer,
        config.minTtlMs(),
        config.unsafeLocalGrants(), config.limits(), admission, executors,
        interceptors.toArray(ServerInterceptor[]::new));
    this.divisionWatch = new DivisionWatch(raft, sm::storageFault, this::divisionStopped);
    if (metrics != null) {
      admission.bindTo(metrics.registry());
      metrics.bindReplica(sm);
      metrics.bindRaft(raft, RaftSetup.GROUP_ID, executors.timers());
      metrics.bindDataDir(config.dataDir(), sm::storageFault);
      metrics.bindLiveness(divisionWatch::notLiveReason);
      if (clockRates != null) {
        metrics.bindClockRates(clockRates);
      }
    }
    if (config.confirm().unsafe()) {
      LOG.warn("UNSAFE: --unsafe-leadership-lease-factor {}: this node may answer as leader after another leader "
          + "was elected (negative control)", config.confirm().leaseFactor());
    }
    if (config.unsafeLocalGrants()) {
      LOG.warn("UNSAFE: --unsafe-local-grants is on; this node grants names without Raft (negative control)");
    }
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
    RaftProperties props = RaftSetup.properties(config);
    refuseIfDataLost(config, security, props);
    return start(new RegentServer(config, security, true, props));
  }

  /**
   * Before anything is written: a first voter starting with no Raft state whose peers saw it take part has
   * lost its data, and must be replaced instead ({@link LostDataCheck}).
   */
  private static void refuseIfDataLost(ServerConfig config, Security security, RaftProperties props)
      throws IOException {
    if (Files.exists(new DataDir(config.dataDir()).raftGroup())) {
      return;
    }
    LostDataCheck.refuseIfRemembered(RaftPeerId.valueOf(config.nodeId()), RaftSetup.group(config),
        props, NodeSecurity.load(security, config.nodeId()).raftParameters(),
        config.dataDir().toString());
  }

  /**
   * Builds and starts a node that is not one of a new cluster's initial voters: a node restarting on the data
   * of a member that was added later, or a new node waiting to be added ({@code regent member add}, or
   * {@link Joiner}). It starts with an empty peer list and the cluster's group id; {@code config.peers()}
   * names only this node's Raft address.
   */
  public static RegentServer startMember(ServerConfig config, Security security) throws IOException {
    return start(new RegentServer(config, security, false, RaftSetup.properties(config)));
  }

  /** {@link #startMember(ServerConfig, Security)} with plaintext ports and no permission checks. */
  public static RegentServer startMember(ServerConfig config) throws IOException {
    return startMember(config, Security.NONE);
  }

  private static RegentServer start(RegentServer s) throws IOException {
    ServerConfig config = s.config;
    try {
      s.raft.start();
    } catch (IOException | RuntimeException e) {
      ServerConfig.InvalidSettingException refused = refusal(e);
      if (refused == null) {
        throw e;
      }
      try {
        s.close();
      } catch (Exception c) {
        refused.addSuppressed(c);
      }
      throw refused; // the start-up check of the stored state refused this node's settings
    }
    s.divisionWatch.start(s.executors.timers());
    s.leaderTracker = ClientLeaderTracker.start(s.raft, s.clients, LEADER_POLL_MS, s.confirmer::leaderChanged,
        s.executors.timers());
    s.api.start();
    String raftAddress = config.peers().get(config.nodeId());
    s.publisher = ApiAddressPublisher.start(s.raft, s.replica, s.proposer,
        ApiAddressPublisher.advertised(config.apiHost(), s.api.port(), raftAddress), s.executors.timers());
    s.timingPublisher = TimingPublisher.start(s.raft, s.replica, s.proposer, s.timing, s.executors.timers());
    if (s.clockRates != null) {
      s.clockProber = ClockProber.start(config.nodeId(), s.division::currentGroup, s.probeClients, s.clockRates,
          System::nanoTime, s.executors);
    }
    if (s.metrics != null) {
      s.metricsHttp = MetricsHttpServer.start(config.apiHost(), config.metricsPort(), s.metrics,
          s.executors.blocking(), s.console == null ? Map.of() : Map.of(Console.PATH, s.console));
      LOG.info("node {} serving /metrics, /healthz and /readyz{} on {}:{}", config.nodeId(),
          s.console == null ? "" : " and the console " + Console.PATH + "/", config.apiHost(), s.metricsHttp.port());
      if (s.console != null) {
        s.clusterView.setConsoleUrl(s.consoleUrl().orElse(""));
      }
    }
    if (config.etcdPort() >= 0) {
      String loopback = ApiAddressPublisher.advertised(config.apiHost(), s.api.port(), "127.0.0.1:0");
      try {
        s.etcd = EtcdGateway.start(new InetSocketAddress(config.apiHost(), config.etcdPort()), loopback,
            s.clusterView::raftLeader, config.minTtlMs(), config.limits().maxMessageBytes());
      } catch (IOException e) {
        IOException failed = new IOException("etcd port " + config.etcdPort() + ": " + e.getMessage(), e);
        try {
          s.close(); // the rest is up: a node that cannot serve what it was asked to serves nothing
        } catch (Exception c) {
          failed.addSuppressed(c);
        }
        throw failed;
      }
      String etcdAddress = ApiAddressPublisher.advertised(config.apiHost(), s.etcd.port(), raftAddress);
      s.clusterView.setEtcdAddress(etcdAddress);
      LOG.info("node {} serving etcd's Lease, Election and Lock services on {}", config.nodeId(), etcdAddress);
    }
    LOG.info("node {} serving the API on {}:{}, Raft on {}", config.nodeId(), config.apiHost(), s.api.port(),
        config.peers().get(config.nodeId()));
    return s;
  }

  /**
   * Has {@code handler} told, once, on a timer thread, why this node's Raft division stopped for good (a full
   * data directory, a failed write): the node then answers nothing any more and {@code /healthz} fails; only a
   * new process brings it back. {@code regent server} exits with {@link #EXIT_DIVISION_STOPPED}; a node in a
   * test stays as it is.
   */
  public synchronized void onDivisionStopped(Consumer<String> handler) {
    this.onDivisionStopped = handler;
    if (stoppedReason != null) { // it stopped before anyone asked
      handler.accept(stoppedReason);
    }
  }

  private synchronized void divisionStopped(String reason) {
    LOG.error("node {}: Raft division stopped for good: {}", config.nodeId(), reason);
    stoppedReason = reason;
    if (onDivisionStopped != null) {
      onDivisionStopped.accept(reason);
    }
  }

  /** The settings refusal {@code e} wraps (Ratis wraps what the state machine's start-up check throws), or null. */
  private static ServerConfig.InvalidSettingException refusal(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof ServerConfig.InvalidSettingException r) {
        return r;
      }
    }
    return null;
  }

  /** Port of the public gRPC API. */
  public int apiPort() {
    return api.port();
  }

  /** Port of etcd's Lease, Election and Lock services, or -1 when the node serves none. */
  public int etcdPort() {
    return etcd == null ? -1 : etcd.port();
  }

  /** Port of the metrics and health endpoint, or -1 when it has none. */
  public int metricsPort() {
    return metricsHttp == null ? -1 : metricsHttp.port();
  }

  /**
   * URL of this node's web console, {@code http://HOST:PORT/console/} (HOST: the address the API advertises, so a
   * wildcard bind names the Raft host), or empty when it serves none (no metrics port, or {@code --console false}).
   */
  public Optional<String> consoleUrl() {
    if (console == null || metricsHttp == null) {
      return Optional.empty();
    }
    String hostPort = ApiAddressPublisher.advertised(config.apiHost(), metricsHttp.port(),
        config.peers().get(config.nodeId()));
    return Optional.of("http://" + hostPort + Console.PATH + "/");
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

  /**
   * This node's leadership lease (docs/architecture.md §8.1), empty under {@code --confirm strict}: the partition
   * tests read where a lease began to check that no answer came after its safe end.
   */
  public Optional<LeadershipLease> leadershipLease() {
    return Optional.ofNullable(lease);
  }

  /**
   * The clock this node reports to its peers' clock probes (docs/architecture.md §8.1, "clock rates"): tests make
   * a node report a clock running at another rate through it.
   */
  public ClockReadings clockReadings() {
    return clockReadings;
  }

  /** This node's view of its peers' clock rates, empty under {@code --confirm strict} (tests, metrics). */
  public Optional<ClockRateCheck> clockRates() {
    return Optional.ofNullable(clockRates);
  }

  /** The underlying Ratis server (status, tests). */
  public RaftServer raft() {
    return raft;
  }

  @Override
  public void close() throws Exception {
    divisionWatch.close(); // the division closes next, on purpose
    if (metricsHttp != null) {
      metricsHttp.close();
    }
    if (metrics != null) {
      metrics.close();
    }
    if (publisher != null) {
      publisher.close();
    }
    if (timingPublisher != null) {
      timingPublisher.close();
    }
    if (etcd != null) {
      etcd.close();
    }
    api.close();
    if (leaderTracker != null) {
      leaderTracker.close();
    }
    if (clockProber != null) {
      clockProber.close();
    }
    clients.close();
    raft.close();
    lessor.close();
    executors.close();
  }
}
