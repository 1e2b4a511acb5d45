package io.regent.cli.command.server;

import io.regent.cli.command.ClientOptions;
import io.regent.cli.holder.Signals;
import io.regent.cli.output.ExitCodes;
import io.regent.cli.settings.ServerSettings;
import io.regent.cli.settings.SettingsReport;
import io.regent.client.RegentClient;
import io.regent.server.Joiner;
import io.regent.server.RegentServer;
import io.regent.server.config.ConfirmRule;
import io.regent.server.config.ServerConfig;
import io.regent.server.ratis.ApiAddressPublisher;
import io.regent.server.single.SingleWriterServer;
import io.regent.server.storage.CellCountException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code regent server}: runs one Raft node (or the single writer) and its public API until SIGINT/SIGTERM. */
@Command(name = "server", mixinStandardHelpOptions = true, defaultValueProvider = ServerSettings.class,
    description = {"Runs one Regent node (Ratis + public gRPC API) until SIGINT/SIGTERM.",
        "Every setting can also come from $REGENT_<NAME> (e.g. REGENT_API_PORT) or the --config file "
            + "(e.g. api-port: 7101); a flag wins over the variable, which wins over the file.",
        "Example: regent server --id n1 --peers n1=127.0.0.1:7001,n2=127.0.0.1:7002,n3=127.0.0.1:7003 "
            + "--api-port 7101 --data-dir data/n1",
        "Join a running cluster: regent server --id n4 --raft 127.0.0.1:7004 --api-port 7104 --data-dir data/n4 "
            + "--join 127.0.0.1:7101 (restart it later with the same flags, --join included or not)",
        "Exits 0 after SIGINT/SIGTERM, and 6 when the node's Raft division stopped for good (e.g. its data "
            + "directory is full: one 'data directory full' line says so); its supervisor restarts it and it "
            + "catches up (docs/operations.md, disk full)."})
public final class ServerCommand implements Callable<Integer> {
  /** How long a joining node may take to catch up before it is promoted, ms (it stays a learner after). */
  static final long JOIN_TIMEOUT_MS = 600_000;

  @Spec
  CommandSpec spec;

  @Option(names = "--id", paramLabel = "ID", description = "this node's id (one of --peers)")
  String id;

  @Option(names = "--peers", paramLabel = "ID=HOST:PORT[,...]",
      description = "every voting member and its Raft address, in the same order on every node")
  String peers;

  @Option(names = "--raft", paramLabel = "HOST:PORT",
      description = "this node's Raft address when it is not one of a new cluster's --peers: with --join, or "
          + "to wait until 'regent member add' adds it, or to restart on the data of a node that joined")
  String raft;

  @Option(names = "--join", paramLabel = "HOST:PORT[,...]",
      description = "API endpoints of a running cluster: have it add this node (--id, --raft) as a learner, wait "
          + "until the node has caught up (by snapshot if need be), then have it promoted to voter")
  String join;

  @Option(names = "--api-port", paramLabel = "PORT", defaultValue = "7101",
      description = "port of the public gRPC API (default: ${DEFAULT-VALUE})")
  int apiPort;

  @Option(names = "--api-host", paramLabel = "HOST", defaultValue = "127.0.0.1",
      description = "address the public API binds to (default: ${DEFAULT-VALUE})")
  String apiHost;

  @Option(names = "--data-dir", paramLabel = "DIR",
      description = "directory for the Raft log, snapshots and LMDB state (required)")
  Path dataDir;

  @Option(names = "--election-timeout", paramLabel = "MIN[..MAX]",
      description = "Raft's randomized election timeout, e.g. 600ms..900ms (default); MAX defaults to 2 x MIN. "
          + "The minimum lease TTL is 1.5 x MAX.")
  String electionTimeout;

  @Option(names = "--metrics-port", paramLabel = "PORT", defaultValue = "-1",
      description = "serve /metrics (Prometheus), /healthz and /readyz over HTTP on --api-host:PORT "
          + "(default: none)")
  int metricsPort;

  @Option(names = "--etcd-port", paramLabel = "PORT", defaultValue = "-1",
      description = "also serve etcd's Lease, Election and Lock gRPC services on --api-host:PORT, for clients written "
          + "against etcd (jetcd, etcdctl's lease commands); plaintext, not with TLS or --permissions; 0 picks a free "
          + "port (default: none; docs/migrating.md)")
  int etcdPort;

  @Option(names = "--cells", paramLabel = "C", defaultValue = "1",
      description = "the cluster's number of cells: C Raft groups on the same nodes, each with its own log, state and "
          + "leader, each tenant's names in one of them (a name's tenant: the text of its first {...}, else its first "
          + "/ segment, else the name), 1..32768; fixed when the cluster is created, the same on every node "
          + "(default: 1; docs/architecture.md §14)")
  int cells;

  @Option(names = "--console", arity = "0..1", fallbackValue = "true", paramLabel = "true|false",
      description = "serve the read-only web console at /console/ on the --metrics-port: names, holders, tokens, "
          + "leases, groups and events, unauthenticated like /metrics (default: true, but false when "
          + "--permissions or --client-cert-auth is set)")
  Boolean console;

  @Option(names = "--proposal-batch", paramLabel = "N", defaultValue = "64",
      description = "client operations packed into one Raft entry at most, 1..1024 (default 64; 1: one entry "
          + "per operation). A lone operation never waits: a batch forms only behind entries in flight.")
  int proposalBatch;

  @Option(names = "--single-writer", arity = "0..1", fallbackValue = "true", paramLabel = "true|false",
      description = "one process, no Raft: the baseline of the comparisons "
      + "(same API and tokens; every command fsynced before its reply; unavailable while down)")
  boolean singleWriter;

  @Option(names = ServerSettings.CONFIG, paramLabel = "FILE",
      description = "YAML file of settings, keys named like the options without dashes (api-port: 7101); "
          + "default: $REGENT_CONFIG, else none. Unknown keys are errors.")
  Path config;

  @Option(names = ServerSettings.PRINT_CONFIG,
      description = "print every effective setting and where it came from (flag, environment, file, default) "
          + "as YAML, then exit")
  boolean printConfig;

  @Option(names = "--log-dir", paramLabel = "DIR",
      description = "write the node's log to DIR/regent.log, rolled daily and at 100 MB (14 days, 2 GB kept); "
          + "default: stdout")
  Path logDir;

  @Mixin
  LimitOptions limitOptions;

  @Option(names = "--confirm", paramLabel = "lease|strict", defaultValue = "lease",
      description = "how the leader confirms its leadership before a keepalive or linearizable read: 'lease' "
          + "(default) answers at once while its leadership lease holds (bounded clock-rate drift, "
          + "docs/architecture.md §8.1); 'strict' always waits for a Confirm log entry")
  String confirm;

  @Option(names = "--unsafe-leadership-lease-factor", hidden = true, paramLabel = "FACTOR",
      description = "TESTS ONLY (negative control): a leadership lease of FACTOR x the minimum election timeout")
  Double unsafeLeaseFactor;

  @Option(names = "--unsafe-local-grants", hidden = true,
      description = "TESTS ONLY (Jepsen's negative control): grant free names from local state, without Raft")
  boolean unsafeLocalGrants;

  @Option(names = "--unsafe-skip-release", hidden = true,
      description = "TESTS ONLY (negative control of Jepsen's ownership workload): a rebalance hands a partition "
          + "to its new member before the old owner released it")
  boolean unsafeSkipRelease;

  @Option(names = "--unsafe-cleanup-any-attempt", hidden = true,
      description = "TESTS ONLY (negative control of Jepsen's retry workload): a cancelled blocking campaign's "
          + "cleanup resigns what its lease holds, even what a newer attempt of the campaign won")
  boolean unsafeCleanupAnyAttempt;

  @Option(names = "--snapshot-threshold", hidden = true, paramLabel = "N",
      description = "TESTS ONLY (Jepsen's restart run, issue #40): applied entries between automatic snapshots "
          + "(default 10000, docs/operations.md), lower so that a short run takes many snapshots to kill after")
  Long snapshotThreshold;

  @Mixin
  SecurityOptions security;

  @Override
  public Integer call() throws Exception {
    if (spec.defaultValueProvider() instanceof ServerSettings settings) {
      settings.load(spec); // an unknown key is an error even when every setting came from flags
    }
    if (printConfig) {
      SettingsReport.print(spec, spec.commandLine().getOut());
      return ExitCodes.OK;
    }
    if (dataDir == null) {
      throw new ParameterException(spec.commandLine(), "--data-dir is required");
    }
    if (logDir != null) {
      LogFiles.writeTo(logDir.toAbsolutePath());
    }
    if (unsafeSkipRelease) {
      System.err.println("WARNING: --unsafe-skip-release: ownership groups move partitions before their owner "
          + "released them, breaking the release rule; it exists only as a negative control of the Jepsen tests");
    }
    if (Boolean.TRUE.equals(console) && metricsPort < 0) {
      throw usage("--console true needs --metrics-port: the console is served on that port", "console",
          "metrics-port");
    }
    if (etcdPort >= 0 && security.api()) {
      throw usage("--etcd-port serves plaintext without permissions: it cannot be combined with the API's TLS or "
          + "--permissions", "etcd-port");
    }
    if (singleWriter) {
      if (id != null || peers != null || unsafeLocalGrants) {
        throw usage("--single-writer takes no --id, --peers or cluster flags", "single-writer", "id", "peers");
      }
      if (metricsPort >= 0) {
        throw usage("--metrics-port is not available with --single-writer", "single-writer", "metrics-port");
      }
      if (etcdPort >= 0) {
        throw usage("--etcd-port is not available with --single-writer", "single-writer", "etcd-port");
      }
      if (security.any()) {
        throw new ParameterException(spec.commandLine(), "TLS and --permissions are not available with "
            + "--single-writer");
      }
      return serve(SingleWriterServer.start(apiHost, apiPort, dataDir.toAbsolutePath(), unsafeSkipRelease));
    }
    if (id == null || (peers == null) == (raft == null)) {
      throw usage("--id and either --peers (the voters of a new cluster) or --raft (a node joining a cluster, or "
          + "restarting on the data of one that joined) are required", "id", "peers", "raft");
    }
    if (join != null && peers != null) {
      throw usage("--join takes this node's --raft address, not --peers", "join", "peers");
    }
    ServerConfig config;
    try {
      ServerConfig.Builder b = ServerConfig.builder(id, dataDir.toAbsolutePath());
      if (electionTimeout != null) {
        b.electionTimeout(electionTimeout);
      }
      if (snapshotThreshold != null) {
        if (snapshotThreshold < 1) {
          throw usage("--snapshot-threshold must be at least 1, got " + snapshotThreshold, "snapshot-threshold");
        }
        b.snapshotThreshold(snapshotThreshold);
      }
      if (peers != null) {
        b.peers(peers);
      } else {
        b.raftAddress(raft);
      }
      config = b.apiHost(apiHost).apiPort(apiPort).unsafeLocalGrants(unsafeLocalGrants)
          .unsafeSkipRelease(unsafeSkipRelease).unsafeCleanupAnyAttempt(unsafeCleanupAnyAttempt)
          .metricsPort(metricsPort).etcdPort(etcdPort).cells(cells)
          .limits(limitOptions.limits()).confirm(confirmRule()).proposalBatch(proposalBatch).console(consoleOn()).build();
    } catch (ServerConfig.InvalidSettingException e) {
      throw usage(e.getMessage(), e.settings().toArray(String[]::new));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    if (unsafeLocalGrants) {
      System.err.println("WARNING: --unsafe-local-grants: this node grants names without Raft and breaks every "
          + "guarantee; it exists only as the negative control of the Jepsen tests");
    }
    RegentServer node;
    try {
      node = peers != null ? RegentServer.start(config, security.security())
          : RegentServer.startMember(config, security.security());
    } catch (ServerConfig.InvalidSettingException e) { // settings the node's timing or stored state refuse
      throw usage(e.getMessage(), e.settings().toArray(String[]::new));
    } catch (CellCountException e) { // the data directory was created with another number of cells
      throw usage(e.getMessage(), "cells");
    }
    if (peers == null && join != null) {
      joinCluster(node);
    }
    return serve(node);
  }

  /**
   * {@code --console}, or its default: on, unless the API restricts who may read (permissions, or client
   * certificates), since the console's port has no authentication (docs/security.md).
   */
  private boolean consoleOn() {
    boolean restricted = security.permissions != null || security.clientCertAuth;
    if (Boolean.TRUE.equals(console) && restricted && metricsPort >= 0) {
      System.err.println("WARNING: --console true with --permissions or --client-cert-auth: anyone who reaches "
          + "the metrics port sees every name, holder, token and group, whatever the permissions say");
    }
    return console(console, restricted);
  }

  /**
   * Whether the console is served: as {@code flag} says when given (non-null), else unless the API is
   * {@code restricted} (permissions or client certificates), the port serving it having no authentication.
   */
  public static boolean console(Boolean flag, boolean restricted) {
    return flag != null ? flag : !restricted;
  }

  /** {@code --confirm} and {@code --unsafe-leadership-lease-factor}. */
  private ConfirmRule confirmRule() {
    if (!confirm.equals("lease") && !confirm.equals("strict")) {
      throw usage("invalid --confirm '" + confirm + "': expected lease or strict", "confirm");
    }
    if (unsafeLeaseFactor == null) {
      return confirm.equals("strict") ? ConfirmRule.STRICT : ConfirmRule.LEASE;
    }
    if (confirm.equals("strict")) {
      throw usage("--unsafe-leadership-lease-factor needs --confirm lease", "confirm", "unsafe-leadership-lease-factor");
    }
    System.err.println("WARNING: --unsafe-leadership-lease-factor " + unsafeLeaseFactor + ": this node may answer "
        + "as leader after another was elected; it exists only as a negative control");
    return new ConfirmRule(false, unsafeLeaseFactor);
  }

  /** {@code --join}: has the running cluster add this node as a learner, then promote it once caught up. */
  private void joinCluster(RegentServer node) throws Exception {
    try (RegentClient cluster = RegentClient.connect(ClientOptions.parse(join, spec))) {
      Joiner.join(node, cluster, ApiAddressPublisher.advertised(apiHost, node.apiPort(), raft), JOIN_TIMEOUT_MS);
    } catch (Exception e) {
      node.close();
      throw e;
    }
  }

  /**
   * Runs {@code node} until SIGINT/SIGTERM (exit code 0) or until its Raft division stopped for good (exit code
   * {@link RegentServer#EXIT_DIVISION_STOPPED}: a node that answers nothing must not look alive to its
   * supervisor), then closes it.
   */
  private int serve(RegentServer node) throws InterruptedException {
    return serve(node, stopped -> node.onDivisionStopped(reason -> stopped.run()));
  }

  /** Runs {@code server} until SIGINT/SIGTERM, then closes it; exit code 0. */
  private int serve(AutoCloseable server) throws InterruptedException {
    return serve(server, stopped -> { });
  }

  /**
   * Runs {@code server} until SIGINT/SIGTERM or until the runnable handed to {@code onFatal} runs (the server
   * stopped on its own: exit code {@link RegentServer#EXIT_DIVISION_STOPPED}), then closes it.
   */
  private int serve(AutoCloseable server, Consumer<Runnable> onFatal)
      throws InterruptedException {
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
    AtomicInteger code = new AtomicInteger(ExitCodes.OK);
    Signals.onTermination(signalled::countDown);
    onFatal.accept(() -> {
      code.compareAndSet(ExitCodes.OK, RegentServer.EXIT_DIVISION_STOPPED);
      signalled.countDown();
    });
    Runtime.getRuntime().addShutdownHook(new Thread(stop, "regent-shutdown"));
    signalled.await();
    stop.run();
    return code.get();
  }

  /** A usage error (exit 2) about the settings {@code keys}, naming where those not given as flags came from. */
  private ParameterException usage(String message, String... keys) {
    StringBuilder b = new StringBuilder(message);
    if (spec.defaultValueProvider() instanceof ServerSettings settings) {
      for (String key : keys) {
        settings.origin(key).filter(o -> !spec.commandLine().getParseResult().hasMatchedOption("--" + key))
            .ifPresent(o -> b.append(" (").append(key).append(" from ").append(o).append(')'));
      }
    }
    return new ParameterException(spec.commandLine(), b.toString());
  }
}
