package io.regent.cli.cluster;

import io.regent.api.v1.StatusResponse;
import io.regent.cli.command.ClientOptions;
import io.regent.cli.output.ExitCodes;
import io.regent.cli.output.Json;
import io.regent.process.ChildProcess;
import io.regent.server.placement.Placement;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code regent cluster up}: starts (or restarts) local nodes and waits for a Raft leader. */
@Command(name = "up", mixinStandardHelpOptions = true,
    description = {"Starts a local cluster of `regent server` processes and waits until it has a Raft leader; "
        + "prints the API endpoints.",
        "Node n<i> uses Raft port P+i, API port P+100+i, metrics port P+200+i and etcd-compatible port P+300+i; "
            + "its data, log and pid are DIR/n<i>, DIR/n<i>.log and DIR/n<i>.pid. DIR/endpoints lists the endpoints, "
            + "DIR/metrics the metrics URLs (one per line), DIR/console-url the first node's web console, "
            + "DIR/etcd-endpoints the etcd-compatible endpoints, comma-separated (not with --tls: nodes that require "
            + "client certificates serve no console and no etcd port). Run again on the same DIR to restart "
            + "the same nodes on their data."})
public final class ClusterUpCommand implements Callable<Integer> {
  /** File of the cluster directory naming the first node's console URL, one line. */
  static final String CONSOLE_URL_FILE = "console-url";
  /** File of the cluster directory listing the etcd-compatible endpoints, comma-separated (etcdctl's form). */
  static final String ETCD_ENDPOINTS_FILE = "etcd-endpoints";

  /** How long `up` waits for a Raft leader. */
  static final long LEADER_TIMEOUT_MS = 90_000;

  @Spec
  CommandSpec spec;

  @Option(names = "--nodes", paramLabel = "N", description = "3 or 5 (default: 3; an existing DIR keeps its own)")
  Integer nodes;

  @Option(names = "--dir", paramLabel = "DIR", defaultValue = "regent-data",
      description = "cluster directory (default: ./${DEFAULT-VALUE})")
  Path dir;

  @Option(names = "--base-port", paramLabel = "P", description = "base port (default: 7000)")
  Integer basePort;

  @Option(names = "--tls", paramLabel = "CERTS",
      description = "mutual TLS on every API and Raft port, with the files of `regent certs init --dir CERTS` "
          + "(node n<i> uses CERTS/n<i>.crt and .key); clients then need --cacert CERTS/ca.crt --cert --key. "
          + "An existing DIR keeps its own setting")
  Path tls;

  @Option(names = "--confirm", paramLabel = "lease|strict",
      description = "start every node with `regent server --confirm MODE` (default: the server's own default). "
          + "An existing DIR keeps its own setting")
  String confirm;

  @Option(names = "--proposal-batch", paramLabel = "N",
      description = "start every node with `regent server --proposal-batch N`, 1..1024 (1: one Raft entry per "
          + "operation; default: the server's own). An existing DIR keeps its own setting")
  Integer proposalBatch;

  @Option(names = "--cells", paramLabel = "C",
      description = "start every node with `regent server --cells C`: C Raft groups on the same nodes, each tenant's "
          + "names in one of them, 1..32768 (default: 1; docs/architecture.md §14). An existing "
          + "DIR keeps its own setting")
  Integer cells;

  @Option(names = {"-w", "--write-out"}, paramLabel = "FORMAT", defaultValue = "simple",
      description = "output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE})")
  ClientOptions.Output output = ClientOptions.Output.simple;

  @Override
  public Integer call() throws Exception {
    if (nodes != null && nodes != 3 && nodes != 5) {
      throw new ParameterException(spec.commandLine(), "--nodes must be 3 or 5, not " + nodes);
    }
    if (basePort != null && (basePort < 1024 || basePort > 65_000)) {
      throw new ParameterException(spec.commandLine(), "--base-port must be within 1024..65000");
    }
    if (confirm != null && !confirm.equals("lease") && !confirm.equals("strict")) {
      throw new ParameterException(spec.commandLine(), "--confirm must be 'lease' or 'strict', not '" + confirm + "'");
    }
    if (proposalBatch != null && (proposalBatch < 1 || proposalBatch > 1024)) {
      throw new ParameterException(spec.commandLine(), "--proposal-batch must be within 1..1024, not " + proposalBatch);
    }
    if (cells != null && (cells < 1 || cells > Placement.MAX_CELLS)) {
      throw new ParameterException(spec.commandLine(), "--cells must be within 1.." + Placement.MAX_CELLS + ", not "
          + cells);
    }
    PrintWriter err = spec.commandLine().getErr();
    Up up = up(dir, nodes, basePort, tls, confirm, proposalBatch, cells, err);
    if (up.cluster().tls() != null) {
      Path certs = up.cluster().tls();
      err.println("mutual TLS: clients need --cacert " + certs.resolve("ca.crt") + " --cert "
          + certs.resolve("<client>.crt") + " --key " + certs.resolve("<client>.key"));
      err.flush();
    }
    String out = output == ClientOptions.Output.json
        ? Json.obj().put("dir", up.cluster().dir().toString()).put("endpoints", List.of(up.cluster().endpoints()
            .split(","))).put("leader", up.status().getLeader()).put("term", up.status().getTerm()).toString()
        : up.cluster().endpoints();
    spec.commandLine().getOut().println(out);
    return ExitCodes.OK;
  }

  /** What {@link #up} started. */
  public record Up(ProcessCluster cluster, StatusResponse status, long millis) {
  }

  /**
   * Starts every node of the cluster in {@code dir} that is not already running (creating the layout when
   * {@code dir} has none) and waits until one reports a Raft leader. Also used by {@code regent demo}.
   */
  public static Up up(Path dir, Integer nodes, Integer basePort, PrintWriter err) throws Exception {
    return up(dir, nodes, basePort, null, null, err);
  }

  /**
   * Like {@link #up(Path, Integer, Integer, PrintWriter)}, a new cluster of {@code cells} cells per node
   * ({@code regent server --cells}; null: one).
   */
  public static Up up(Path dir, Integer nodes, Integer basePort, Integer cells, PrintWriter err) throws Exception {
    return up(dir, nodes, basePort, null, null, null, cells, err);
  }

  /** Like {@link #up(Path, Integer, Integer, PrintWriter)}, a new cluster with mutual TLS when {@code tls} is set. */
  static Up up(Path dir, Integer nodes, Integer basePort, Path tls, PrintWriter err) throws Exception {
    return up(dir, nodes, basePort, tls, null, err);
  }

  /**
   * Like {@link #up(Path, Integer, Integer, Path, PrintWriter)}; a new cluster's nodes run with
   * {@code --confirm confirm} when it is not null.
   */
  static Up up(Path dir, Integer nodes, Integer basePort, Path tls, String confirm, PrintWriter err)
      throws Exception {
    return up(dir, nodes, basePort, tls, confirm, null, null, err);
  }

  /**
   * Like {@link #up(Path, Integer, Integer, Path, String, PrintWriter)}, with {@code --proposal-batch N} and
   * {@code --cells C} too (null: the server's defaults).
   */
  static Up up(Path dir, Integer nodes, Integer basePort, Path tls, String confirm, Integer proposalBatch,
      Integer cells, PrintWriter err) throws Exception {
    long start = System.nanoTime();
    Optional<ProcessCluster> existing = ProcessCluster.load(dir);
    ProcessCluster cluster;
    if (existing.isPresent()) {
      cluster = existing.get();
      if ((nodes != null && nodes != cluster.nodes().size())
          || (basePort != null && basePort + 1 != cluster.nodes().get(0).raftPort())
          || (tls != null && !tls.toAbsolutePath().normalize().equals(cluster.tls()))
          || (confirm != null && !confirm.equals(cluster.confirm())) || proposalBatch != null || cells != null) {
        err.println("note: " + cluster.dir() + " already holds a " + cluster.nodes().size() + "-node cluster; "
            + "restarting it as it was (ignoring --nodes/--base-port/--tls/--confirm/--proposal-batch/--cells)");
      }
    } else {
      cluster = ProcessCluster.create(dir, nodes == null ? 3 : nodes, basePort == null ? 7000 : basePort, tls)
          .withConfirm(confirm).withProposalBatch(proposalBatch).withCells(cells);
      for (ProcessCluster.Node n : cluster.nodes()) {
        cluster.checkPorts(n); // before writing anything, so that a retry may pick another --base-port
      }
    }
    cluster.checkCertificates();
    cluster.save();
    java.nio.file.Files.writeString(cluster.dir().resolve("metrics"), String.join("\n", cluster.nodes().stream()
        .map(n -> "http://" + ProcessCluster.HOST + ":" + n.metricsPort() + "/metrics").toList()) + "\n");
    // The nodes serve the console unless they require client certificates (docs/security.md): a TLS cluster has none.
    java.nio.file.Path consoleFile = cluster.dir().resolve(CONSOLE_URL_FILE);
    java.nio.file.Files.deleteIfExists(consoleFile);
    java.nio.file.Path etcdFile = cluster.dir().resolve(ETCD_ENDPOINTS_FILE);
    java.nio.file.Files.deleteIfExists(etcdFile);
    if (cluster.tls() == null) {
      java.nio.file.Files.writeString(consoleFile, consoleUrl(cluster.nodes().get(0)) + "\n");
      java.nio.file.Files.writeString(etcdFile, String.join(",", cluster.nodes().stream()
          .map(ProcessCluster.Node::etcdAddress).toList()) + "\n");
    }
    List<ChildProcess> started = new ArrayList<>();
    try {
      for (ProcessCluster.Node n : cluster.nodes()) {
        Optional<ProcessHandle> running = cluster.process(n);
        if (running.isPresent()) {
          err.println(n.id() + " already running (pid " + running.get().pid() + ")");
          started.add(null);
          continue;
        }
        ChildProcess p = cluster.spawn(n);
        started.add(p);
        err.println("started " + n.id() + " (pid " + p.pid() + "): raft " + n.raftAddress() + ", api "
            + n.apiAddress() + ", log " + cluster.dir().resolve(n.id() + ".log"));
      }
      err.flush();
      StatusResponse status = cluster.awaitLeader(LEADER_TIMEOUT_MS, started);
      long millis = (System.nanoTime() - start) / 1_000_000;
      err.println("cluster ready in " + millis + " ms: Raft leader " + status.getLeader() + ", term "
          + status.getTerm());
      if (cluster.tls() == null) {
        err.println("console " + consoleUrl(cluster.nodes().get(0)) + " (also in " + consoleFile + ")");
        err.println("etcd-compatible endpoints " + String.join(",", cluster.nodes().stream()
            .map(ProcessCluster.Node::etcdAddress).toList()) + " (also in " + etcdFile + ")");
      }
      err.flush();
      return new Up(cluster, status, millis);
    } catch (Exception e) {
      // Leave nothing half-started behind: stop only what this call started.
      for (ChildProcess p : started) {
        if (p != null) {
          p.close();
        }
      }
      throw e;
    }
  }

  /** The web console of local node {@code n}: {@code http://127.0.0.1:METRICS-PORT/console/}. */
  static String consoleUrl(ProcessCluster.Node n) {
    return "http://" + ProcessCluster.HOST + ":" + n.metricsPort() + "/console/";
  }
}
