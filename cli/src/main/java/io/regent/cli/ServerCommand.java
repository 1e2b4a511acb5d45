package io.regent.cli;

import io.regent.server.RegentServer;
import io.regent.server.ServerConfig;
import io.regent.server.single.SingleWriterServer;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code regent server}: runs one Raft node (or the single writer) and its public API until SIGINT/SIGTERM. */
@Command(name = "server", mixinStandardHelpOptions = true,
    description = {"Runs one Regent node (Ratis + public gRPC API) until SIGINT/SIGTERM.",
        "Example: regent server --id n1 --peers n1=127.0.0.1:7001,n2=127.0.0.1:7002,n3=127.0.0.1:7003 "
            + "--api-port 7101 --data-dir data/n1"})
public final class ServerCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--id", paramLabel = "ID", description = "this node's id (one of --peers)")
  String id;

  @Option(names = "--peers", paramLabel = "ID=HOST:PORT[,...]",
      description = "every voting member and its Raft address, in the same order on every node")
  String peers;

  @Option(names = "--api-port", paramLabel = "PORT", defaultValue = "7101",
      description = "port of the public gRPC API (default: ${DEFAULT-VALUE})")
  int apiPort;

  @Option(names = "--api-host", paramLabel = "HOST", defaultValue = "127.0.0.1",
      description = "address the public API binds to (default: ${DEFAULT-VALUE})")
  String apiHost;

  @Option(names = "--data-dir", paramLabel = "DIR", required = true,
      description = "directory for the Raft log, snapshots and LMDB state")
  Path dataDir;

  @Option(names = "--election-timeout", paramLabel = "MIN[..MAX]",
      description = "Raft's randomized election timeout, e.g. 600ms..1200ms (default); MAX defaults to 2 x MIN. "
          + "The minimum lease TTL is 1.5 x MAX.")
  String electionTimeout;

  @Option(names = "--metrics-port", paramLabel = "PORT", defaultValue = "-1",
      description = "serve /metrics (Prometheus), /healthz and /readyz over HTTP on --api-host:PORT "
          + "(default: none)")
  int metricsPort;

  @Option(names = "--single-writer", description = "one process, no Raft: the baseline of the comparisons "
      + "(same API and tokens; every command fsynced before its reply; unavailable while down)")
  boolean singleWriter;

  @Option(names = "--unsafe-local-grants", hidden = true,
      description = "TESTS ONLY (Jepsen's negative control): grant free names from local state, without Raft")
  boolean unsafeLocalGrants;

  @Mixin
  SecurityOptions security;

  @Override
  public Integer call() throws Exception {
    if (singleWriter) {
      if (id != null || peers != null || unsafeLocalGrants) {
        throw new ParameterException(spec.commandLine(), "--single-writer takes no --id, --peers or cluster flags");
      }
      if (metricsPort >= 0) {
        throw new ParameterException(spec.commandLine(), "--metrics-port is not available with --single-writer");
      }
      if (security.any()) {
        throw new ParameterException(spec.commandLine(), "TLS and --permissions are not available with "
            + "--single-writer");
      }
      return serve(SingleWriterServer.start(apiHost, apiPort, dataDir.toAbsolutePath()));
    }
    if (id == null || peers == null) {
      throw new ParameterException(spec.commandLine(), "--id and --peers are required");
    }
    long[] timeout = electionTimeout(electionTimeout);
    ServerConfig defaults = ServerConfig.of(id, checkedPeers(), apiPort, dataDir.toAbsolutePath());
    ServerConfig config;
    try {
      config = new ServerConfig(id, defaults.peers(), apiHost, apiPort, defaults.dataDir(), timeout[0], timeout[1],
          defaults.snapshotThreshold(), defaults.logSegmentBytes(), defaults.requestTimeoutMs(), false)
          .withUnsafeLocalGrants(unsafeLocalGrants).withMetricsPort(metricsPort);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    if (unsafeLocalGrants) {
      System.err.println("WARNING: --unsafe-local-grants: this node grants names without Raft and breaks every "
          + "guarantee; it exists only as the negative control of the Jepsen tests");
    }
    return serve(RegentServer.start(config, security.security()));
  }

  /** Runs {@code server} until SIGINT/SIGTERM, then closes it; exit code 0. */
  private int serve(AutoCloseable server) throws InterruptedException {
    AtomicBoolean closed = new AtomicBoolean();
    Runnable stop = () -> {
      if (closed.compareAndSet(false, true)) {
        try {
          server.close();
        } catch (Exception e) {
          System.err.println("error: stopping the node: " + e);
        }
      }
    };
    // SIGINT/SIGTERM: close the node and exit 0; the hook covers any other way out of the JVM.
    CountDownLatch signalled = new CountDownLatch(1);
    Signals.onTermination(signalled::countDown);
    Runtime.getRuntime().addShutdownHook(new Thread(stop, "regent-shutdown"));
    signalled.await();
    stop.run();
    return ExitCodes.OK;
  }

  private LinkedHashMap<String, String> checkedPeers() {
    LinkedHashMap<String, String> map = new LinkedHashMap<>();
    for (String p : peers.split(",")) {
      String[] kv = p.trim().split("=", 2);
      if (kv.length != 2 || kv[0].isBlank() || !kv[1].matches("[^:\\s]+:\\d{1,5}")) {
        throw new ParameterException(spec.commandLine(), "invalid peer '" + p + "': expected ID=HOST:PORT");
      }
      if (map.put(kv[0].trim(), kv[1].trim()) != null) {
        throw new ParameterException(spec.commandLine(), "peer '" + kv[0] + "' is listed twice");
      }
    }
    if (!map.containsKey(id)) {
      throw new ParameterException(spec.commandLine(), "--id " + id + " is not among --peers " + map.keySet());
    }
    return map;
  }

  /** Parses {@code MIN[..MAX]} into milliseconds; the defaults when absent. */
  long[] electionTimeout(String range) {
    if (range == null) {
      return new long[] {ServerConfig.DEFAULT_ELECTION_MIN_MS, ServerConfig.DEFAULT_ELECTION_MAX_MS};
    }
    String[] parts = range.split("\\.\\.", -1);
    if (parts.length > 2) {
      throw new ParameterException(spec.commandLine(), "--election-timeout '" + range + "': expected MIN[..MAX]");
    }
    try {
      long min = DurationConverter.parse(parts[0]).toMillis();
      long max = parts.length == 2 && !parts[1].isBlank() ? DurationConverter.parse(parts[1]).toMillis() : 2 * min;
      if (min <= 0 || max < min) {
        throw new ParameterException(spec.commandLine(), "--election-timeout '" + range + "': need 0 < MIN <= MAX");
      }
      return new long[] {min, max};
    } catch (picocli.CommandLine.TypeConversionException e) {
      throw new ParameterException(spec.commandLine(), "--election-timeout: " + e.getMessage());
    }
  }
}
