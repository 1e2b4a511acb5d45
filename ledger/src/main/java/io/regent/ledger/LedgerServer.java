package io.regent.ledger;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.regent.fencing.IdempotencyKeys;
import io.regent.server.api.MalformedRequests;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The fenced demo resource (docs/architecture.md §5) as a gRPC server: service {@code regent.v1.Ledger} plus grpc health
 * and reflection, over an LMDB environment in its data directory. Runs apart from any Regent node: it
 * stands for the storage a leader writes to, which knows nothing of Raft but checks tokens.
 */
public final class LedgerServer implements AutoCloseable {
  private final Server server;
  private final LedgerStore store;

  private LedgerServer(Server server, LedgerStore store) {
    this.server = server;
    this.store = store;
  }

  /**
   * Starts a ledger on {@code 127.0.0.1:port} (the same default host as the node API), reporting
   * {@code regent_fence_rejected_total} to {@link Metrics#globalRegistry}.
   *
   * @param port TCP port; 0 picks a free one (see {@link #port()})
   * @param dataDir the LMDB directory, created when absent; reopening it keeps every entry and every H
   * @throws IOException when the port cannot be bound
   */
  public static LedgerServer start(int port, Path dataDir, LedgerMode mode) throws IOException {
    return start(new InetSocketAddress("127.0.0.1", port), dataDir, mode, Metrics.globalRegistry);
  }

  /**
   * Starts a ledger on {@code address}, counting rejections in {@code registry} (tag {@code store=lmdb}), keeping
   * idempotency keys for {@link IdempotencyKeys#DEFAULT_RETENTION} (24 h).
   */
  public static LedgerServer start(InetSocketAddress address, Path dataDir, LedgerMode mode,
                                   MeterRegistry registry) throws IOException {
    return start(address, dataDir, mode, registry, IdempotencyKeys.DEFAULT_RETENTION);
  }

  /**
   * As {@link #start(InetSocketAddress, Path, LedgerMode, MeterRegistry)}, keeping each append's idempotency key
   * for {@code idempotencyRetention} after the append (Stripe keeps its keys 24 h; it must be at least the
   * clients' longest retry window).
   *
   * @throws IllegalArgumentException when {@code idempotencyRetention} is not positive
   */
  public static LedgerServer start(InetSocketAddress address, Path dataDir, LedgerMode mode,
                                   MeterRegistry registry, Duration idempotencyRetention) throws IOException {
    return start(address, dataDir, mode, registry, idempotencyRetention, Clock.systemUTC());
  }

  /** As above, on {@code clock} (tests of expiry). */
  static LedgerServer start(InetSocketAddress address, Path dataDir, LedgerMode mode, MeterRegistry registry,
                            Duration idempotencyRetention, Clock clock) throws IOException {
    LedgerStore store = new LedgerStore(dataDir, mode, registry, idempotencyRetention, clock,
        LedgerFailpoint.fromSystem());
    HealthStatusManager health = new HealthStatusManager();
    Server server = NettyServerBuilder.forAddress(address)
        .intercept(new MalformedRequests())
        .addService(MalformedRequests.tolerant(new LedgerService(store)))
        .addService(MalformedRequests.tolerant(health.getHealthService()))
        .addService(MalformedRequests.tolerant(ProtoReflectionServiceV1.newInstance()))
        .build();
    try {
      server.start();
    } catch (IOException | RuntimeException e) {
      store.close();
      throw e;
    }
    return new LedgerServer(server, store);
  }

  /** Drops every expired idempotency key now (appends drop a few each); returns how many. */
  int purgeExpiredIdempotencyKeys() {
    return store.purgeExpired();
  }

  /** How many idempotency keys are stored. */
  long idempotencyKeys() {
    return store.idempotencyRecords();
  }

  /** The bound port. */
  public int port() {
    return server.getPort();
  }

  /** Blocks until the server is closed (for {@code regent ledger serve}). */
  public void awaitTermination() throws InterruptedException {
    server.awaitTermination();
  }

  /** Stops serving, waits up to 5 s for calls in flight, then closes LMDB. */
  @Override
  public void close() throws InterruptedException {
    server.shutdown();
    if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    store.close();
  }
}
