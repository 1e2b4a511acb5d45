package io.regent.server.api;

import io.regent.server.membership.ClusterView;
import io.grpc.BindableService;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptor;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.regent.server.concurrent.NodeExecutors;
import io.regent.server.placement.Placement;
import io.regent.server.limits.Admission;
import io.regent.server.limits.ConnectionLimiter;
import io.regent.server.limits.LeaseQuota;
import io.regent.server.limits.ServerLimits;
import io.regent.server.confirm.Confirmer;
import io.regent.server.replication.Cleanups;
import io.regent.server.replication.Proposer;
import io.regent.server.rpc.MethodRules;
import io.regent.statemachine.replica.ReplicaView;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The public gRPC endpoint of one node: services Lease, Election, Lock, Group, Cluster, health and reflection, behind
 * the limits of {@link ServerLimits}; every reply names the Raft leader ({@link LeaderHeaders}).
 */
public final class ApiServer implements AutoCloseable {
  /** HTTP/2 streams a connection may open beyond the call limit, so that excess calls reach the server and
   * get a RESOURCE_EXHAUSTED answer instead of waiting in the client for a free stream. */
  private static final int STREAM_HEADROOM = 64;

  /** Shortest interval between client keepalive pings that the server accepts, s (gRPC clients: 10 s at least). */
  static final long PERMIT_KEEPALIVE_SECONDS = 5;
  /**
   * This process's start, ms since the epoch: names the origin of its monotonic clock in keepalive answers (nodes
   * in one JVM, as in tests, share that origin too).
   */
  private static final long STARTED_MS = System.currentTimeMillis();

  private final Server server;
  /** Each cell's services, in cell order: their readiness checks start and stop with the server. */
  private final List<CellServices> cells;
  private final StateReader reader;
  private final NodeExecutors executors;

  /**
   * Binds (but does not start) the API in plaintext with {@link ServerLimits#DEFAULTS}.
   *
   * @param address host and port to bind (port 0 picks a free one)
   * @param cluster what Status reports
   * @param sm this node's state and events
   * @param proposer where commands go (Raft, or the single writer's local log)
   * @param minTtlMs smallest TTL a Grant may ask for, ms
   * @param unsafeLocalGrants TESTS ONLY: the Jepsen negative control (see {@code ServerConfig})
   * @param unsafeCleanupAnyAttempt TESTS ONLY: the retry workload's negative control (see {@code ServerConfig})
   * @param executors the node's (docs/architecture.md §10): its blocking pool runs local reads, snapshot streams,
   *     Observe and Group.Watch deliveries and the answers of waiting campaigns, its scheduler the health checks
   * @param interceptors wrap every call (metrics)
   */
  public ApiServer(InetSocketAddress address, ClusterView cluster, ReplicaView sm, Proposer proposer,
                   Confirmer confirmer, long minTtlMs, boolean unsafeLocalGrants, boolean unsafeCleanupAnyAttempt,
                   NodeExecutors executors, ServerInterceptor... interceptors) {
    this(address, InsecureServerCredentials.create(), cluster, sm, proposer, confirmer, minTtlMs, unsafeLocalGrants,
        unsafeCleanupAnyAttempt,
        ServerLimits.DEFAULTS, new Admission(ServerLimits.DEFAULTS.admission(), call -> null, System::nanoTime),
        executors, interceptors);
  }

  /**
   * Binds (but does not start) the API with {@code credentials} (TLS, optionally mutual: see
   * {@code io.regent.server.security.TlsCredentials}) and {@code limits}; the other parameters as above.
   *
   * @param limits message size, per-connection, state and stream limits (see {@link ServerLimits})
   * @param admission the priority lanes and per-identity quotas (docs/architecture.md §7.2), built with
   *     {@code limits.admission()}; it runs before the per-connection limits
   * @param interceptors wrap every call (metrics), outside the limits so that refusals are counted too
   * @throws IllegalStateException when a method it serves is not declared in {@code MethodRules}
   */
  public ApiServer(InetSocketAddress address, ServerCredentials credentials, ClusterView cluster, ReplicaView sm,
                   Proposer proposer, Confirmer confirmer, long minTtlMs, boolean unsafeLocalGrants,
                   boolean unsafeCleanupAnyAttempt, ServerLimits limits, Admission admission, NodeExecutors executors,
                   ServerInterceptor... interceptors) {
    this(address, credentials, List.of(new CellBackend(cluster, sm, proposer, confirmer)), Placement.SINGLE, minTtlMs,
        unsafeLocalGrants, unsafeCleanupAnyAttempt, limits, admission, executors, interceptors);
  }

  /**
   * Binds (but does not start) the API of a node with several cells (docs/architecture.md §14): each call goes to
   * the services of its name's or its lease's cell; Status, membership, snapshots, health and the leader the
   * replies name are cell 0's. The other parameters as above.
   *
   * @param cells what the API serves of each cell, in cell order; one for a node without cells
   * @param placement the cell of each name, over {@code cells.size()} cells
   */
  public ApiServer(InetSocketAddress address, ServerCredentials credentials, List<CellBackend> cells,
                   Placement placement, long minTtlMs, boolean unsafeLocalGrants, boolean unsafeCleanupAnyAttempt,
                   ServerLimits limits, Admission admission, NodeExecutors executors,
                   ServerInterceptor... interceptors) {
    this.executors = executors;
    var blocking = executors.blocking();
    CellBackend first = cells.get(0);
    ClusterView cluster = first.cluster();
    HealthStatusManager healthStatus = new HealthStatusManager();
    LeaseQuota quota = new LeaseQuota(limits.maxLeasesPerConnection());
    Attempts attempts = new Attempts(System::currentTimeMillis, unsafeCleanupAnyAttempt);
    Cleanups cleanups = Cleanups.on(blocking);
    // Last, so outermost: every reply names the leader, the refusals of the limits and permission checks too.
    LeaderHeaders leaderHeaders = new LeaderHeaders(cluster, first.replica(), System::nanoTime);
    NodeClock clock = new NodeClock(() -> {
      var raft = cluster.raftLeader();
      return raft == null ? null : raft.node();
    }, System::nanoTime, STARTED_MS);
    List<CellServices> services = new ArrayList<>();
    for (CellBackend cell : cells) {
      // only cell 0's readiness is the node's gRPC health; each cell's gates its own serializable reads
      services.add(new CellServices(cell, services.isEmpty() ? healthStatus : new HealthStatusManager(), minTtlMs,
          unsafeLocalGrants, limits, admission, quota, attempts, cleanups, executors, leaderHeaders::named, clock));
    }
    this.cells = List.copyOf(services);
    this.reader = services.get(0).reader;
    ConnectionLimiter limiter = new ConnectionLimiter(limits, System::nanoTime, quota::forget);
    NettyServerBuilder builder = NettyServerBuilder.forAddress(address, credentials)
        .maxInboundMessageSize(limits.maxMessageBytes())
        .maxConcurrentCallsPerConnection(limits.maxCallsPerConnection() + STREAM_HEADROOM)
        // Clients ping to find a dead node under a long call (a campaign, an Observe stream); gRPC's default
        // allows one ping per 5 minutes and answers more with GOAWAY "too_many_pings".
        .permitKeepAliveTime(PERMIT_KEEPALIVE_SECONDS, TimeUnit.SECONDS)
        .addTransportFilter(limiter)
        .intercept(new MalformedRequests()) // first: the innermost, see its javadoc
        .intercept(limiter)
        .intercept(admission) // before the per-connection limits: a shed call costs as little as possible
        .intercept(new SeenIndexHeader());
    java.util.Arrays.stream(interceptors).forEach(builder::intercept);
    builder.intercept(leaderHeaders);
    List<BindableService> perName;
    if (cells.size() == 1) {
      CellServices only = services.get(0);
      perName = List.of(only.lease, only.election, only.lock, only.group);
    } else {
      CellRoutes routes = new CellRoutes(placement, services);
      perName = List.of(new RoutedLeaseService(routes, placement, leaderHeaders::named),
          new RoutedElectionService(routes), new RoutedLockService(routes), new RoutedGroupService(routes));
    }
    List<BindableService> all = new ArrayList<>(perName);
    all.addAll(List.of(new ClusterService(cluster, first.confirmer(), cells.stream().map(CellBackend::cluster).toList()),
        new MaintenanceService(first.confirmer(), first.replica(), blocking, cells.size() > 1),
        healthStatus.getHealthService(),
        ProtoReflectionServiceV1.newInstance(),
        // v1alpha too: grpcui, Evans and Postman still ask for it
        io.grpc.protobuf.services.ProtoReflectionService.newInstance()));
    for (BindableService s : all) {
      builder.addService(MalformedRequests.tolerant(s));
    }
    this.server = builder.build();
    MethodRules.requireDeclared(server.getServices()); // each method's lane and right, before any call comes
  }

  /** Starts serving. */
  public ApiServer start() throws IOException {
    server.start();
    cells.forEach(c -> c.health.start(executors.timers()));
    return this;
  }

  /**
   * The reads of this node's state, linearizable or serializable, as the API answers them: serializable ones wait for
   * the replay after a start (docs/operations.md "Restarts"). The etcd port's KV ranges read through it too.
   */
  public StateReader reader() {
    return reader;
  }

  /** The bound port. */
  public int port() {
    return server.getPort();
  }

  @Override
  public void close() throws InterruptedException {
    cells.forEach(c -> c.health.close());
    server.shutdownNow();
    server.awaitTermination(5, TimeUnit.SECONDS);
  }
}
