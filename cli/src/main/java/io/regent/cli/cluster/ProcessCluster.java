package io.regent.cli.cluster;

import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.regent.api.v1.ClusterGrpc;
import io.regent.api.v1.StatusRequest;
import io.regent.api.v1.StatusResponse;
import io.regent.cli.command.server.ServerCommand;
import io.regent.cli.settings.ServerSettings;
import io.regent.client.RegentClientBuilder;
import io.regent.process.ChildProcess;
import io.regent.process.ProcessExit;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;

/**
 * A cluster of local {@code regent server} processes described by {@code DIR/cluster.conf}: node ids, Raft
 * and API ports. Node {@code n<i>} keeps its data in {@code DIR/n<i>}, its log in {@code DIR/n<i>.log} and
 * its pid in {@code DIR/n<i>.pid}; {@code DIR/endpoints} lists the API endpoints.
 */
public final class ProcessCluster {
  /** The address every local node binds and is reached at. */
  public static final String HOST = "127.0.0.1";

  /** One node: its id and ports. */
  public record Node(String id, int raftPort, int apiPort) {
    String raftAddress() {
      return HOST + ":" + raftPort;
    }

    /** The node's client API as {@code host:port}. */
    public String apiAddress() {
      return HOST + ":" + apiPort;
    }

    /** Port of the node's /metrics, /healthz and /readyz: its API port + 100 (base + 200 + i). */
    int metricsPort() {
      return apiPort + 100;
    }

    /** Port of the node's etcd-compatible services: its API port + 200 (base + 300 + i); plaintext nodes only. */
    int etcdPort() {
      return apiPort + 200;
    }

    String etcdAddress() {
      return HOST + ":" + etcdPort();
    }
  }

  private final Path dir;
  private final List<Node> nodes;
  /** Directory of {@code regent certs init} files for mutual TLS on both ports; null: plaintext. */
  private final Path tls;
  /** The nodes' {@code regent server --confirm} mode ("lease" or "strict"); null: the server's default. */
  private final String confirm;
  /** The nodes' {@code regent server --proposal-batch}; null: the server's default. */
  private final Integer proposalBatch;
  /** The cluster's {@code regent server --cells}; null: one cell. */
  private final Integer cells;

  private ProcessCluster(Path dir, List<Node> nodes, Path tls, String confirm, Integer proposalBatch,
                         Integer cells) {
    this.dir = dir.toAbsolutePath().normalize();
    this.nodes = List.copyOf(nodes);
    this.tls = tls == null ? null : tls.toAbsolutePath().normalize();
    this.confirm = confirm;
    this.proposalBatch = proposalBatch;
    this.cells = cells;
  }

  /** This layout with every node started as {@code regent server --confirm MODE}; null: the server's default. */
  ProcessCluster withConfirm(String mode) {
    return new ProcessCluster(dir, nodes, tls, mode, proposalBatch, cells);
  }

  /**
   * This layout with every node started as {@code regent server --proposal-batch N} (1: one Raft entry per
   * operation, the A/B of batching in scripts/bench-rounds.sh); null: the server's default.
   */
  ProcessCluster withProposalBatch(Integer n) {
    return new ProcessCluster(dir, nodes, tls, confirm, n, cells);
  }

  /**
   * This layout with every node started as {@code regent server --cells N}: N Raft groups on the same nodes, each
   * with its own state (docs/architecture.md §14); null: one cell.
   */
  ProcessCluster withCells(Integer n) {
    return new ProcessCluster(dir, nodes, tls, confirm, proposalBatch, n);
  }

  /** The nodes' confirmation mode, null when they use the server's default. */
  String confirm() {
    return confirm;
  }

  /** A new layout: node i (1-based) is {@code n<i>}, Raft port base+i, API port base+100+i. */
  static ProcessCluster create(Path dir, int count, int basePort) {
    return create(dir, count, basePort, null);
  }

  /**
   * Like {@link #create(Path, int, int)}; with {@code tls} (a {@code regent certs init} directory) every node
   * serves its API and Raft port over mutual TLS with {@code tls/<id>.crt}, {@code tls/<id>.key} and
   * {@code tls/ca.crt}.
   */
  static ProcessCluster create(Path dir, int count, int basePort, Path tls) {
    List<Node> nodes = new ArrayList<>();
    for (int i = 1; i <= count; i++) {
      nodes.add(new Node("n" + i, basePort + i, basePort + 100 + i));
    }
    return new ProcessCluster(dir, nodes, tls, null, null, null);
  }

  /** The cluster described by {@code DIR/cluster.conf}, if there is one. */
  static Optional<ProcessCluster> load(Path dir) throws IOException {
    Path conf = dir.resolve("cluster.conf");
    if (!Files.exists(conf)) {
      return Optional.empty();
    }
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(conf)) {
      p.load(r);
    }
    List<Node> nodes = new ArrayList<>();
    for (String id : p.getProperty("nodes", "").split(",")) {
      try {
        nodes.add(new Node(id, Integer.parseInt(p.getProperty(id + ".raft-port")),
            Integer.parseInt(p.getProperty(id + ".api-port"))));
      } catch (NumberFormatException e) {
        throw new IOException(conf + " is damaged: no ports for node '" + id + "'");
      }
    }
    String tls = p.getProperty("tls");
    return Optional.of(new ProcessCluster(dir, nodes, tls == null ? null : Path.of(tls), p.getProperty("confirm"),
        number(p, "proposal-batch", conf), number(p, "cells", conf)));
  }

  private static Integer number(Properties p, String key, Path conf) throws IOException {
    String v = p.getProperty(key);
    try {
      return v == null ? null : Integer.valueOf(v);
    } catch (NumberFormatException e) {
      throw new IOException(conf + " is damaged: " + key + " '" + v + "' is not a number");
    }
  }

  /** Writes {@code cluster.conf} and {@code endpoints}. */
  void save() throws IOException {
    Files.createDirectories(dir);
    Properties p = new Properties();
    p.setProperty("nodes", String.join(",", nodes.stream().map(Node::id).toList()));
    for (Node n : nodes) {
      p.setProperty(n.id() + ".raft-port", String.valueOf(n.raftPort()));
      p.setProperty(n.id() + ".api-port", String.valueOf(n.apiPort()));
    }
    if (tls != null) {
      p.setProperty("tls", tls.toString());
    }
    if (confirm != null) {
      p.setProperty("confirm", confirm);
    }
    if (proposalBatch != null) {
      p.setProperty("proposal-batch", String.valueOf(proposalBatch));
    }
    if (cells != null) {
      p.setProperty("cells", String.valueOf(cells));
    }
    try (Writer w = Files.newBufferedWriter(dir.resolve("cluster.conf"))) {
      p.store(w, "regent local cluster, written by `regent cluster up`; `up` on this directory restarts these nodes");
    }
    Files.writeString(dir.resolve("endpoints"), endpoints() + "\n");
  }

  Path dir() {
    return dir;
  }

  /** The certificate directory when the nodes use mutual TLS, else null. */
  Path tls() {
    return tls;
  }

  /** Fails, naming the file and the command that makes it, unless every node's certificate and key exist. */
  void checkCertificates() throws IOException {
    if (tls == null) {
      return;
    }
    List<String> needed = new ArrayList<>(List.of("ca.crt"));
    nodes.forEach(n -> needed.addAll(List.of(n.id() + ".crt", n.id() + ".key")));
    for (String f : needed) {
      if (!Files.isReadable(tls.resolve(f))) {
        throw new IOException("no " + tls.resolve(f) + ": run `regent certs init --dir " + tls + " --nodes "
            + String.join(",", nodes.stream().map(Node::id).toList()) + "`");
      }
    }
  }

  /** Credentials that reach the nodes' APIs: plaintext, or mutual TLS with the node's own certificate. */
  ChannelCredentials credentials(Node n) {
    return tls == null ? InsecureChannelCredentials.create() : RegentClientBuilder.credentials(tls.resolve("ca.crt"),
        tls.resolve(n.id() + ".crt"), tls.resolve(n.id() + ".key"));
  }

  /** The cluster's nodes, n1 first. */
  public List<Node> nodes() {
    return nodes;
  }

  /** The comma-separated API endpoints. */
  public String endpoints() {
    return String.join(",", nodes.stream().map(Node::apiAddress).toList());
  }

  Path pidFile(Node n) {
    return dir.resolve(n.id() + ".pid");
  }

  /** The running process recorded in the node's pid file, if it is alive and still that node. */
  public Optional<ProcessHandle> process(Node n) {
    try {
      if (!Files.exists(pidFile(n))) {
        return Optional.empty();
      }
      long pid = Long.parseLong(Files.readString(pidFile(n)).trim());
      return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).filter(h -> isNode(h, n));
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** Guards against a recycled pid: when the OS tells us the arguments, they must be this node's. */
  private boolean isNode(ProcessHandle h, Node n) {
    return h.info().arguments().map(a -> List.of(a).contains(dir.resolve(n.id()).toString())).orElse(true);
  }

  /** Starts node {@code n} as a detached {@code regent server} process and records its pid. */
  ChildProcess spawn(Node n) throws IOException {
    checkPorts(n);
    List<String> jvm = Launcher.serverJvm(System.getenv(Launcher.JAVA_OPTS_ENV));
    List<String> cmd = new ArrayList<>(Launcher.javaCommand(jvm));
    cmd.addAll(List.of("server", "--id", n.id(), "--peers", peers(), "--api-port", String.valueOf(n.apiPort()),
        "--data-dir", dir.resolve(n.id()).toString(), "--metrics-port", String.valueOf(n.metricsPort())));
    if (tls == null) {
      cmd.addAll(List.of("--etcd-port", String.valueOf(n.etcdPort())));
    }
    if (confirm != null) {
      cmd.addAll(List.of("--confirm", confirm));
    }
    if (proposalBatch != null) {
      cmd.addAll(List.of("--proposal-batch", String.valueOf(proposalBatch)));
    }
    if (cells != null) {
      cmd.addAll(List.of("--cells", String.valueOf(cells)));
    }
    if (tls != null) {
      String crt = tls.resolve(n.id() + ".crt").toString();
      String key = tls.resolve(n.id() + ".key").toString();
      String ca = tls.resolve("ca.crt").toString();
      cmd.addAll(List.of("--tls-cert", crt, "--tls-key", key, "--tls-ca", ca, "--client-cert-auth",
          "--peer-tls-cert", crt, "--peer-tls-key", key, "--peer-tls-ca", ca, "--peer-client-cert-auth"));
    }
    Files.createDirectories(dir.resolve(n.id()));
    // Own session: a Ctrl-C in the terminal that ran `cluster up` does not reach it. A local node is
    // configured by its flags alone: the operator's REGENT_CONFIG or REGENT_LOG_DIR must not send five nodes
    // to one file or one log.
    ChildProcess p = ChildProcess.builder(n.id(), cmd).newSession().directory(dir)
        .removeVariables(serverVariables()).appendOutputTo(dir.resolve(n.id() + ".log")).start();
    Files.writeString(pidFile(n), p.pid() + "\n");
    return p;
  }

  /** Fails when a port of {@code n} is taken. */
  void checkPorts(Node n) throws IOException {
    int[] ports = tls == null ? new int[] {n.raftPort(), n.apiPort(), n.metricsPort(), n.etcdPort()}
        : new int[] {n.raftPort(), n.apiPort(), n.metricsPort()};
    for (int port : ports) {
      if (!portFree(port)) {
        throw new IOException("port " + port + " of node " + n.id() + " is in use (another cluster? try "
            + "`regent cluster down --dir ...` or another --base-port)");
      }
    }
  }

  private String peers() {
    return String.join(",", nodes.stream().map(n -> n.id() + "=" + n.raftAddress()).toList());
  }

  /** Polls every node's linearizable status until one reports a Raft leader; throws after {@code timeoutMs}. */
  StatusResponse awaitLeader(long timeoutMs, List<ChildProcess> started) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    List<ManagedChannel> channels = nodes.stream().map(n -> (ManagedChannel) NettyChannelBuilder
        .forAddress(HOST, n.apiPort(), credentials(n)).build()).toList();
    try {
      while (System.nanoTime() < deadline) {
        for (int i = 0; i < nodes.size(); i++) {
          ChildProcess p = i < started.size() ? started.get(i) : null;
          if (p != null && !p.alive()) {
            throw new IOException("node " + nodes.get(i).id() + " exited with code " + p.exitCode() + "; see "
                + dir.resolve(nodes.get(i).id() + ".log"));
          }
          try {
            StatusResponse s = ClusterGrpc.newBlockingStub(channels.get(i)).withDeadlineAfter(2, TimeUnit.SECONDS)
                .status(StatusRequest.getDefaultInstance());
            if (!s.getLeader().isEmpty()) {
              return s;
            }
          } catch (StatusRuntimeException e) {
            // not up yet, or no leader yet
          }
        }
        Thread.sleep(200);
      }
      throw new IOException("no Raft leader after " + timeoutMs / 1000 + " s; see the node logs in " + dir);
    } finally {
      channels.forEach(ManagedChannel::shutdownNow);
    }
  }

  /** Sends SIGTERM to every recorded node, waits up to {@code graceMs}, then kills what is left. */
  public void stop(long graceMs, PrintWriter err) throws IOException {
    List<Node> stopping = new ArrayList<>();
    List<ProcessHandle> handles = new ArrayList<>();
    for (Node n : nodes) {
      process(n).ifPresent(h -> {
        h.destroy();
        stopping.add(n);
        handles.add(h);
      });
    }
    if (handles.isEmpty()) {
      err.println("no running nodes recorded in " + dir);
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMs);
    for (int i = 0; i < handles.size(); i++) {
      ProcessHandle h = handles.get(i);
      if (awaitEnd(h, deadline)) {
        err.println("stopped " + stopping.get(i).id() + " (pid " + h.pid() + ")");
      } else {
        h.destroyForcibly();
        err.println("killed " + stopping.get(i).id() + " (pid " + h.pid() + "): it did not stop within "
            + graceMs / 1000 + " s");
      }
    }
    for (Node n : nodes) {
      Files.deleteIfExists(pidFile(n));
    }
    err.flush();
  }

  /** A node is not this JVM's child: {@link ProcessExit} judges its end. Interrupted: it is killed, as are the rest. */
  private static boolean awaitEnd(ProcessHandle node, long deadlineNanos) {
    try {
      return ProcessExit.await(node, deadlineNanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** The variables {@code regent server} reads: a node must not inherit this process's values of them. */
  private static Set<String> serverVariables() {
    return ServerSettings.serverVariables(new CommandLine(new ServerCommand()).getCommandSpec());
  }

  /** Whether {@code port} can be bound on {@link #HOST} now (it may be taken a moment later). */
  public static boolean portFree(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(HOST, port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
