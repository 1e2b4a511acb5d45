package io.regent.server.api;

import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptor;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.regent.server.raft.Confirmer;
import io.regent.server.raft.EntrySubmitter;
import io.regent.statemachine.replica.ReplicaView;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/** The public gRPC endpoint of one node: services Lease, Election, Lock, Cluster, health and reflection. */
public final class ApiServer implements AutoCloseable {
  /** Events an Observe stream may have queued before it is closed with RESOURCE_EXHAUSTED. */
  public static final int OBSERVE_BUFFER = 1024;

  private final Server server;
  private final ExecutorService streams = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "regent-observe");
    t.setDaemon(true);
    return t;
  });

  /**
   * Binds (but does not start) the API.
   *
   * @param address host and port to bind (port 0 picks a free one)
   * @param cluster what Status reports
   * @param sm this node's state and events
   * @param proposer where commands go (Raft, or the single writer's local log)
   * @param minTtlMs smallest TTL a Grant may ask for, ms
   * @param unsafeLocalGrants TESTS ONLY: the Jepsen negative control (see {@code ServerConfig})
   * @param interceptors wrap every call (metrics)
   */
  public ApiServer(InetSocketAddress address, ClusterView cluster, ReplicaView sm, EntrySubmitter proposer,
                   Confirmer confirmer, long minTtlMs, boolean unsafeLocalGrants, ServerInterceptor... interceptors) {
    this(address, InsecureServerCredentials.create(), cluster, sm, proposer, confirmer, minTtlMs, unsafeLocalGrants,
        interceptors);
  }

  /**
   * Like the plaintext constructor, serving with {@code credentials} (TLS, optionally mutual: see
   * {@code io.regent.server.security.TlsCredentials}).
   */
  public ApiServer(InetSocketAddress address, ServerCredentials credentials, ClusterView cluster, ReplicaView sm,
                   EntrySubmitter proposer, Confirmer confirmer, long minTtlMs, boolean unsafeLocalGrants,
                   ServerInterceptor... interceptors) {
    StateReader reader = new StateReader(confirmer, sm);
    Campaigns campaigns = new Campaigns(proposer, sm.hub(), unsafeLocalGrants ? new UnsafeLocalGrants(sm) : null);
    HealthStatusManager health = new HealthStatusManager();
    NettyServerBuilder builder = NettyServerBuilder.forAddress(address, credentials);
    java.util.Arrays.stream(interceptors).forEach(builder::intercept);
    this.server = builder
        .addService(new LeaseService(proposer, confirmer, reader, minTtlMs))
        .addService(new ElectionService(campaigns, new Observers(reader, sm.hub(), streams, OBSERVE_BUFFER),
            reader, proposer))
        .addService(new LockService(campaigns, proposer))
        .addService(new ClusterService(cluster, confirmer))
        .addService(new MaintenanceService(confirmer, sm, streams))
        .addService(health.getHealthService())
        .addService(ProtoReflectionServiceV1.newInstance())
        .build();
  }

  /** Starts serving. */
  public ApiServer start() throws IOException {
    server.start();
    return this;
  }

  /** The bound port. */
  public int port() {
    return server.getPort();
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow();
    server.awaitTermination(5, TimeUnit.SECONDS);
    streams.shutdownNow();
  }
}
