package io.regent.server;

import io.grpc.ServerInterceptor;
import io.regent.api.v1.KvStats;
import io.regent.server.api.ApiServer;
import io.regent.server.api.CellBackend;
import io.regent.server.placement.Placement;
import io.regent.server.cell.Cell;
import io.regent.server.cell.CellReplica;
import io.regent.server.concurrent.NodeExecutors;
import io.regent.server.config.ServerConfig;
import io.regent.server.confirm.ClockRateCheck;
import io.regent.server.confirm.Confirmer;
import io.regent.server.confirm.LeadershipLease;
import io.regent.server.console.Console;
import io.regent.server.etcd.EtcdGateway;
import io.regent.server.etcd.EtcdKv;
import io.regent.server.limits.Admission;
import io.regent.server.membership.FollowerLag;
import io.regent.server.metrics.MetricsHttpServer;
import io.regent.server.metrics.RegentMetrics;
import io.regent.server.ratis.ApiAddressPublisher;
import io.regent.server.ratis.ClockReadings;
import io.regent.server.ratis.LostDataCheck;
import io.regent.server.ratis.RaftClusterView;
import io.regent.server.ratis.RaftHost;
import io.regent.server.ratis.RaftNode;
import io.regent.server.ratis.RaftSetup;
import io.regent.server.replication.Proposer;
import io.regent.server.security.ClientIdentity;
import io.regent.server.security.NodeSecurity;
import io.regent.server.security.Security;
import io.regent.server.storage.DataDir;
import io.regent.statemachine.ratis.ApplyObserver;
import io.regent.statemachine.ratis.RegentStateMachine;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Regent node: a Ratis server running {@link RegentStateMachine}, the leader-side {@link Lessor}, and
 * the public gRPC API. Used by {@code regent server} and, in-process, by tests.
 */
public final class RegentServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RegentServer.class);
  /** How often the followers' lag is sampled, ms: the error of a reported {@code lag_seconds}. */
  static final long FOLLOWER_LAG_SAMPLE_MS = 200;
  /**
   * Exit code of {@code regent server} when its Raft division stopped for good, e.g. on a full data directory
   * (docs/operations.md, "Disk full"): a supervisor restarts it and it catches up.
   */
  public static final int EXIT_DIVISION_STOPPED = 6;

  private final ServerConfig config;
  private final NodeExecutors executors = new NodeExecutors();
  private final RaftHost host;
  /** This node's cells, by number (docs/architecture.md §14); one without cells has cell 0 alone. */
  private final List<Cell> cells = new ArrayList<>();
  /** Cell 0's Raft side: what serves the API until it routes by cell. */
  private final RaftNode raft;
  private final ApiServer api;
  private final RegentMetrics metrics;
  private final RegentStateMachine replica;
  private final boolean startedWithoutRaftState;
  private final Console console;
  private MetricsHttpServer metricsHttp;
  private EtcdGateway etcd;
  /** What the etcd port's KV uses of this node: its client proposer, entry format and read path. */
  private final EtcdKv etcdKv;
  /** Admission of the API's calls and of those the etcd port serves itself. */
  private final Admission admission;
  private Consumer<String> onDivisionStopped; // guarded by this, as stoppedReason
  private String stoppedReason;

  /**
   * @param bootstrap whether {@code config.peers()} are the initial voters of a new cluster (else the node starts
   *     with an empty peer list: its configuration comes from its storage, or from the leader once a member adds
   *     it; docs/ratis.md §12)
   * @param props this node's Ratis properties ({@link RaftSetup#properties}), computed before any resource is taken:
   *     a refused setting leaves nothing to close
   * @param dataDir the layout of {@code config.dataDir()}
   */
  private RegentServer(ServerConfig config, Security security, boolean bootstrap, RaftProperties props,
                       DataDir dataDir) throws IOException {
    this.config = config;
    if (config.etcdPort() >= 0 && (security.api() != null || security.permissions() != null)) {
      // the gateway reaches the API over plaintext loopback, where no client certificate names the caller
      throw new IllegalArgumentException("the etcd port serves plaintext without permissions: --etcd-port cannot "
          + "be combined with TLS or a permissions file (docs/migrating.md)");
    }
    this.startedWithoutRaftState = !dataDir.hasRaftState();
    NodeSecurity sec = NodeSecurity.load(security, config.nodeId());
    this.metrics = config.metricsPort() >= 0 ? new RegentMetrics(config.nodeId()) : null;
    int cellCount = config.cells();
    List<CellReplica> replicas = new ArrayList<>();
    Map<RaftGroupId, RegentStateMachine> machines = new LinkedHashMap<>();
    for (int c = 0; c < cellCount; c++) {
      CellReplica r = CellReplica.of(dataDir.cell(c), config,
          metrics == null ? ApplyObserver.NONE : metrics.applyObserver(), executors);
      replicas.add(r);
      machines.put(RaftSetup.groupId(c), r.machine());
    }
    this.host = new RaftHost(config, props, sec.raftParameters(), bootstrap, machines);
    for (int c = 0; c < cellCount; c++) {
      int cell = c;
      cells.add(new Cell(dataDir.cell(c), replicas.get(c), config, props, sec.raftParameters(), host, executors,
          reason -> cellStopped(cell, reason), cells.isEmpty() ? null : cells.get(0)));
    }
    Cell cell0 = cells.get(0);
    RegentStateMachine sm = cell0.replica();
    this.raft = cell0.raft();
    List<ServerInterceptor> interceptors = new ArrayList<>();
    sec.authorizer().ifPresent(interceptors::add);
    if (metrics != null) {
      interceptors.add(metrics.grpcInterceptor()); // added last, runs first: it also times refused calls
    }
    this.replica = sm;
    Confirmer confirmer = raft.confirmer();
    Proposer operations = cell0.operations();
    RaftClusterView clusterView = raft.clusterView();
    this.console = metrics != null && config.console()
        ? new Console(clusterView, sm, confirmer, metrics::notReadyReason) : null;
    this.admission = new Admission(config.limits().admission(), ClientIdentity::of, System::nanoTime);
    List<CellBackend> backends = cells.stream().map(c -> new CellBackend(c.raft().clusterView(), c.replica(),
        c.operations(), c.raft().confirmer())).toList();
    this.api = new ApiServer(new InetSocketAddress(config.apiHost(), config.apiPort()), sec.apiCredentials(),
        backends, new Placement(cellCount), config.minTtlMs(),
        config.unsafeLocalGrants(), config.unsafeCleanupAnyAttempt(), config.limits(), admission, executors,
        interceptors.toArray(ServerInterceptor[]::new));
    this.etcdKv = new EtcdKv(operations, raft.entryFormat(), api.reader(), sm, executors.blocking(),
        executors.timers());
    if (metrics != null) {
      admission.bindTo(metrics.registry());
      for (int c = 0; c < cellCount; c++) {
        Cell cell = cells.get(c);
        metrics.bindReplica(cell.replica(), c);
        metrics.bindRaft(host.server(), RaftSetup.groupId(c), c, cell::notLiveReason, executors.timers());
      }
      metrics.bindDataDir(dataDir.root(), sm::storageFault);
      metrics.bindLiveness(cell0::notLiveReason);
      raft.clockRates().ifPresent(metrics::bindClockRates);
    }
    executors.timers().scheduleWithFixedDelay(() -> sampleFollowerLag(clusterView), FOLLOWER_LAG_SAMPLE_MS,
        FOLLOWER_LAG_SAMPLE_MS, TimeUnit.MILLISECONDS); // ends when close() shuts the timers down
    if (config.confirm().unsafe()) {
      LOG.warn("UNSAFE: --unsafe-leadership-lease-factor {}: this node may answer as leader after another leader "
          + "was elected (negative control)", config.confirm().leaseFactor());
    }
    if (config.unsafeLocalGrants()) {
      LOG.warn("UNSAFE: --unsafe-local-grants is on; this node grants names without Raft (negative control)");
    }
  }

  /**
   * Samples the followers' lag for Status, the console and the metrics: how long a follower's match index has not
   * moved is known to within one sample (docs/operations.md, "Follower lag").
   */
  private void sampleFollowerLag(RaftClusterView view) {
    try {
      Map<String, FollowerLag> lag = view.followerLag();
      if (metrics != null) {
        metrics.followerLag(lag);
      }
    } catch (RuntimeException e) {
      LOG.debug("follower lag sample failed; the next one retries", e); // a closing division, say
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
   * @throws io.regent.server.storage.CellCountException when the data directory was created with another number
   *     of cells, before anything starts
   */
  public static RegentServer start(ServerConfig config, Security security) throws IOException {
    RaftProperties props = RaftSetup.properties(config);
    DataDir dataDir = new DataDir(config.dataDir());
    dataDir.claimCells(config.cells());
    refuseIfDataLost(config, security, props, dataDir);
    return start(new RegentServer(config, security, true, props, dataDir));
  }

  /**
   * Before anything is written: a first voter starting with no Raft state whose peers saw it take part has
   * lost its data, and must be replaced instead ({@link LostDataCheck}).
   */
  private static void refuseIfDataLost(ServerConfig config, Security security, RaftProperties props, DataDir dataDir)
      throws IOException {
    if (dataDir.hasRaftState()) {
      return;
    }
    LostDataCheck.refuseIfRemembered(RaftPeerId.valueOf(config.nodeId()), RaftSetup.group(config),
        props, NodeSecurity.load(security, config.nodeId()).raftParameters(),
        dataDir.root().toString());
  }

  /**
   * Builds and starts a node that is not one of a new cluster's initial voters: a node restarting on the data
   * of a member that was added later, or a new node waiting to be added ({@code regent member add}, or
   * {@link Joiner}). It starts with an empty peer list and the cluster's group id; {@code config.peers()}
   * names only this node's Raft address.
   */
  public static RegentServer startMember(ServerConfig config, Security security) throws IOException {
    if (config.cells() > 1) { // no member can be added to such a cluster yet: ClusterService refuses it
      throw new ServerConfig.InvalidSettingException("a node of a cluster of several cells starts as one of its "
          + "voters (--peers): membership changes with cells are not supported in this release "
          + "(docs/architecture.md §14)", "cells", "raft");
    }
    DataDir dataDir = new DataDir(config.dataDir());
    dataDir.claimCells(config.cells());
    return start(new RegentServer(config, security, false, RaftSetup.properties(config), dataDir));
  }

  /** {@link #startMember(ServerConfig, Security)} with plaintext ports and no permission checks. */
  public static RegentServer startMember(ServerConfig config) throws IOException {
    return startMember(config, Security.NONE);
  }

  private static RegentServer start(RegentServer s) throws IOException {
    ServerConfig config = s.config;
    try {
      s.host.start();
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
    s.api.start();
    String raftAddress = config.peers().get(config.nodeId());
    for (Cell cell : s.cells) {
      cell.start(ApiAddressPublisher.advertised(config.apiHost(), s.api.port(), raftAddress));
    }
    if (s.metrics != null) {
      s.metricsHttp = MetricsHttpServer.start(config.apiHost(), config.metricsPort(), s.metrics,
          s.executors.blocking(), s.console == null ? Map.of() : Map.of(Console.PATH, s.console));
      LOG.info("node {} serving /metrics, /healthz and /readyz{} on {}:{}", config.nodeId(),
          s.console == null ? "" : " and the console " + Console.PATH + "/", config.apiHost(), s.metricsHttp.port());
      if (s.console != null) {
        s.raft.clusterView().setConsoleUrl(s.consoleUrl().orElse(""));
      }
    }
    if (config.etcdPort() >= 0) {
      String loopback = ApiAddressPublisher.advertised(config.apiHost(), s.api.port(), "127.0.0.1:0");
      try {
        s.etcd = EtcdGateway.start(new InetSocketAddress(config.apiHost(), config.etcdPort()), loopback,
            s.raft.clusterView()::raftLeader, config.minTtlMs(), config.electionTimeoutMaxMs(), s.etcdKv,
            config.limits(), s.admission);
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
      s.raft.clusterView().setEtcdAddress(etcdAddress);
      EtcdGateway etcd = s.etcd;
      s.raft.clusterView().setKvStats(() -> s.etcdKv.replica().read(txn -> KvStats.newBuilder()
          .setKeys(txn.kv().count()).setBytes(txn.kv().bytes())).setWatchers(etcd.watchers()).build());
      if (s.metrics != null) {
        s.metrics.bindEtcdWatchers(etcd::watchers);
      }
      LOG.info("node {} serving etcd's Lease, Election, Lock and KV services on {}", config.nodeId(), etcdAddress);
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

  /**
   * Cell {@code cell}'s division stopped for good. Cell 0's, or a storage failure in any cell (a full data directory
   * is every cell's), stops the node; another cell's entry whose apply threw (Ratis closes only that division)
   * leaves the node serving the other cells (docs/architecture.md §14).
   */
  private void cellStopped(int cell, String reason) {
    if (cell == 0 || !cells.get(cell).replica().stoppedByEntry()) {
      divisionStopped(cells.size() == 1 ? reason : "cell " + cell + ": " + reason);
    } else {
      LOG.error("node {}: cell {}'s Raft division stopped for good: {}; the node serves the other cells",
          config.nodeId(), cell, reason);
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
    return raft.leadershipLease();
  }

  /**
   * The clock this node reports to its peers' clock probes (docs/architecture.md §8.1, "clock rates"): tests make
   * a node report a clock running at another rate through it.
   */
  public ClockReadings clockReadings() {
    return raft.clockReadings();
  }

  /** This node's view of its peers' clock rates, empty under {@code --confirm strict} (tests, metrics). */
  public Optional<ClockRateCheck> clockRates() {
    return raft.clockRates();
  }

  /** The underlying Ratis server (status, tests). */
  public RaftServer raft() {
    return host.server();
  }

  @Override
  public void close() throws Exception {
    for (Cell cell : cells) {
      cell.stopWatching(); // the divisions close next, on purpose
    }
    if (metricsHttp != null) {
      metricsHttp.close();
    }
    if (metrics != null) {
      metrics.close();
    }
    if (etcd != null) {
      etcd.close();
    }
    api.close();
    for (Cell cell : cells) {
      cell.close(); // publishers, leader tracking, clock probes, Ratis clients, lessor
    }
    host.close(); // the Ratis server, and with it every cell's division
    executors.close();
  }
}
