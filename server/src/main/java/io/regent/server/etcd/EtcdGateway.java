package io.regent.server.etcd;

import io.grpc.Attributes;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerTransportFilter;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.regent.server.limits.Admission;
import io.regent.server.limits.ServerLimits;
import io.regent.server.membership.RaftLeader;
import io.regent.server.rpc.MethodRules;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * etcd's {@code Lease}, {@code Election} (v3election), {@code Lock} (v3lock), {@code KV} and {@code Watch} gRPC
 * services on a port of their own, as etcd defines them on the wire, with what a client touches on connect ({@code
 * Cluster.MemberList}, {@code Maintenance.Status} and its alarm list, the {@code hasleader} metadata:
 * {@link LeaderRequired}), so that clients written against etcd (jetcd, etcdctl, Go's clientv3, python-etcd3) use
 * Regent's leases and its replicated keyspace (docs/migrating.md, "etcd's clients").
 *
 * <p>Leases, membership and status go through the gateway as calls on this node's own Regent API, which keeps one
 * path for every rule (TTL range, limits, forwarding to the leader). Each etcd connection gets an upstream
 * connection of its own, so the API's per-connection limits count etcd clients one by one, as they count Regent's;
 * an etcd call's deadline and cancellation carry over to its upstream call. KV and Watch have no counterpart in
 * Regent's API and are served on the node's keyspace directly, and so are Election and Lock, which etcd writes
 * over its KV: they share that keyspace with etcd's clients that use KV, not Regent's elections and names
 * (docs/migrating.md "etcd's Election and Lock").
 * Plaintext only: a node with TLS on its API serves no etcd port (docs/security.md).
 */
public final class EtcdGateway implements AutoCloseable {
  /** Shortest interval between client pings accepted, s (etcd's default {@code --grpc-keepalive-min-time}). */
  private static final long PERMIT_KEEPALIVE_SECONDS = 5;
  private static final Attributes.Key<ManagedChannel> UPSTREAM = Attributes.Key.create("regent.etcd.upstream");

  private final Server server;
  private final ScheduledFuture<?> leaderChecks;
  private final EtcdWatchService watches;

  private EtcdGateway(Server server, ScheduledFuture<?> leaderChecks, EtcdWatchService watches) {
    this.server = server;
    this.leaderChecks = leaderChecks;
    this.watches = watches;
  }

  /**
   * Binds and starts the gateway.
   *
   * @param address host and port to bind (port 0 picks a free one)
   * @param apiTarget {@code host:port} of this node's plaintext Regent API
   * @param leader the Raft leader and term as this node knows them (null when unknown), for each reply's header
   * @param minTtlMs this cluster's smallest lease TTL, ms: etcd raises a smaller TTL to its minimum, and so does this
   * @param electionTimeoutMs the node's longest election timeout, ms: how often it looks for a lost leader on
   *     behalf of the streams opened with {@code hasleader} ({@link LeaderLoss})
   * @param kv the node's proposer, entry format, read path, replica and scheduler, which etcd's KV, Watch, Election
   *     and Lock use directly ({@link EtcdKvService}, {@link EtcdWatchService}, {@link EtcdElectionService},
   *     {@link EtcdLockService}); the leader looks run on its scheduler
   * @param limits the node's API limits: its largest request (bytes) bounds every etcd request and upstream
   *     reply; the others apply to the calls the gateway serves itself ({@link GatewayLimits})
   * @param admission the node's admission, shared with its API
   * @throws IOException when the port cannot be bound
   * @throws IllegalStateException when a method it serves is not declared in {@link MethodRules}
   */
  public static EtcdGateway start(InetSocketAddress address, String apiTarget, Supplier<RaftLeader> leader,
                                  long minTtlMs, long electionTimeoutMs, EtcdKv kv, ServerLimits limits,
                                  Admission admission) throws IOException {
    Headers headers = new Headers(leader);
    LeaderLoss leaderLoss = new LeaderLoss(leader);
    EtcdWatchService watches = new EtcdWatchService(headers, kv);
    int maxMessageBytes = limits.maxMessageBytes();
    GatewayLimits served = new GatewayLimits(limits, admission);
    Server server = NettyServerBuilder.forAddress(address, InsecureServerCredentials.create())
        .maxInboundMessageSize(maxMessageBytes)
        // etcd's --grpc-keepalive-min-time: its clients may ping every 5 s; gRPC's default would answer GOAWAY
        .permitKeepAliveTime(PERMIT_KEEPALIVE_SECONDS, TimeUnit.SECONDS)
        .addTransportFilter(new ServerTransportFilter() {
          @Override
          public Attributes transportReady(Attributes attrs) {
            ManagedChannel ch = Grpc.newChannelBuilder(apiTarget, InsecureChannelCredentials.create())
                .maxInboundMessageSize(maxMessageBytes).build();
            return attrs.toBuilder().set(UPSTREAM, ch).build();
          }

          @Override
          public void transportTerminated(Attributes attrs) {
            ManagedChannel ch = attrs == null ? null : attrs.get(UPSTREAM);
            if (ch != null) {
              ch.shutdownNow();
            }
          }
        })
        .addTransportFilter(served)
        .intercept(served) // inside the leader check: a call refused for want of a leader takes no budget
        .intercept(new ServerInterceptor() {
          @Override
          public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata md,
                                                            ServerCallHandler<Q, R> next) {
            ManagedChannel ch = call.getAttributes().get(UPSTREAM);
            if (ch == null) { // a transport that never became ready cannot carry calls; refuse rather than guess
              call.close(Status.UNAVAILABLE.withDescription("no upstream connection"), new Metadata());
              return new ServerCall.Listener<>() { };
            }
            return Contexts.interceptCall(Context.current().withValue(Upstream.KEY, new Upstream(ch)), call, md, next);
          }
        })
        .addService(EtcdLeaseLeases.addedTo(new EtcdLeaseService(headers, minTtlMs, kv.reader()).bindService(),
            headers))
        .addService(new EtcdElectionService(headers, kv))
        .addService(new EtcdLockService(headers, kv))
        .addService(new EtcdKvService(headers, kv))
        .addService(watches)
        .addService(new EtcdMaintenanceService(headers))
        .addService(new EtcdClusterService(headers))
        // added last, so it runs first: a call refused for want of a leader reaches no service
        .intercept(new LeaderRequired(leader, leaderLoss))
        .build();
    MethodRules.requireDeclared(server.getServices()); // each etcd method's Regent counterparts, or its own rule
    server.start();
    return new EtcdGateway(server, kv.timers().scheduleWithFixedDelay(leaderLoss::check, electionTimeoutMs,
        electionTimeoutMs, TimeUnit.MILLISECONDS), watches);
  }

  /** The bound port. */
  public int port() {
    return server.getPort();
  }

  /** The Watch watchers open on this port now, over every stream (docs/operations.md, the {@code kv} figures). */
  public long watchers() {
    return watches.watchers();
  }

  @Override
  public void close() throws InterruptedException {
    leaderChecks.cancel(false);
    server.shutdownNow();
    server.awaitTermination(5, TimeUnit.SECONDS);
  }
}
