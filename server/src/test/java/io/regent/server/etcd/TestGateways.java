package io.regent.server.etcd;

import io.regent.server.limits.Admission;
import io.regent.server.limits.ServerLimits;
import io.regent.server.membership.RaftLeader;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.function.Supplier;

/** A gateway on a free loopback port, for the tests that drive the etcd services without a node's API behind. */
final class TestGateways {
  /** The node's default limits, with room for the Txn above etcd's 1.5 MiB that EtcdKvRefusalTest sends. */
  static final ServerLimits LIMITS = new ServerLimits(4 << 20, ServerLimits.DEFAULTS.maxCallsPerConnection(),
      ServerLimits.DEFAULTS.maxLeasesPerConnection(), ServerLimits.DEFAULTS.maxLeases(),
      ServerLimits.DEFAULTS.maxNames(), ServerLimits.DEFAULTS.maxCandidates(), ServerLimits.DEFAULTS.maxTtlMs(),
      ServerLimits.DEFAULTS.requestsPerSecond(), ServerLimits.DEFAULTS.requestBurst(),
      ServerLimits.DEFAULTS.maxObservers(), ServerLimits.DEFAULTS.observeBuffer());

  private TestGateways() {
  }

  /** A gateway with {@link #LIMITS}; its relayed calls go to 127.0.0.1:1, where nothing answers. */
  static EtcdGateway start(Supplier<RaftLeader> leader, EtcdKv kv) throws IOException {
    return start(leader, kv, LIMITS);
  }

  /** A gateway with {@code limits} and an admission of its own. */
  static EtcdGateway start(Supplier<RaftLeader> leader, EtcdKv kv, ServerLimits limits) throws IOException {
    return start(leader, kv, limits, new Admission(limits.admission(), call -> null, System::nanoTime));
  }

  /** A gateway with {@code limits} and {@code admission}, as a node's API shares its own with its gateway. */
  static EtcdGateway start(Supplier<RaftLeader> leader, EtcdKv kv, ServerLimits limits, Admission admission)
      throws IOException {
    return EtcdGateway.start(new InetSocketAddress("127.0.0.1", 0), "127.0.0.1:1", leader, 1_000, 1_000, kv, limits,
        admission);
  }
}
