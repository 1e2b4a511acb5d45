package io.regent.jepsen.cluster;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The cluster under test: 3 or 5 real {@code regent server} processes (or one single-writer process),
 * in their own network namespaces when possible, otherwise on loopback with free ports. {@link
 * #close()} kills every process and removes the namespaces; a shutdown hook ({@link Processes}) does
 * the same if the run dies first.
 */
public final class Cluster implements AutoCloseable {
  private final List<Node> nodes;
  private final List<String> etcdEndpoints;
  private final Netns netns;
  private final String loopbackReason;
  private final Runnable cleanup;

  private Cluster(List<Node> nodes, List<String> etcdEndpoints, Netns netns, String loopbackReason,
                  Runnable cleanup) {
    this.nodes = List.copyOf(nodes);
    this.etcdEndpoints = List.copyOf(etcdEndpoints);
    this.netns = netns;
    this.loopbackReason = loopbackReason;
    this.cleanup = cleanup;
  }

  /**
   * Sets up the network in the slot {@code lock} holds, then starts every node (not waiting for them: see
   * {@link Probe}).
   */
  public static Cluster start(ClusterSpec spec, RunLock lock) throws IOException {
    Files.createDirectories(spec.logDir());
    Files.createDirectories(spec.dataRoot());
    Netns netns = null;
    String reason = null;
    if (!spec.network().equals("loopback")) {
      reason = Netns.unavailableReason().orElse(null);
      if (reason == null) {
        try {
          Processes.addAction(() -> Netns.cleanup(lock.slot()));
          netns = Netns.create(lock, spec.nodes());
        } catch (RuntimeException e) {
          reason = "could not create network namespaces: " + e.getMessage();
        }
      }
      if (reason != null && spec.network().equals("netns")) {
        throw new IllegalStateException("--network netns: " + reason);
      }
    } else {
      reason = "--network loopback";
    }
    List<String> etcd = new ArrayList<>();
    List<Node> nodes = netns != null ? netnsNodes(spec, netns, etcd) : loopbackNodes(spec, etcd);
    Netns n = netns;
    Runnable cleanup = () -> {
      nodes.forEach(Node::kill);
      if (n != null) {
        n.close();
      }
    };
    Processes.addAction(cleanup);
    Cluster c = new Cluster(nodes, etcd, netns, reason, cleanup);
    try {
      for (Node node : nodes) {
        node.start();
      }
    } catch (IOException | RuntimeException e) {
      c.close();
      throw e;
    }
    return c;
  }

  private static List<Node> netnsNodes(ClusterSpec spec, Netns netns, List<String> etcd) {
    List<String> hosts = new ArrayList<>();
    for (int i = 1; i <= spec.nodes(); i++) {
      hosts.add(netns.address(i));
    }
    return build(spec, hosts, i -> 7001, i -> 7101, i -> 2379, i -> List.of("ip", "netns", "exec",
        netns.namespace(i)), etcd);
  }

  private static List<Node> loopbackNodes(ClusterSpec spec, List<String> etcd) throws IOException {
    int[] ports = freePorts(3 * spec.nodes());
    List<String> hosts = new ArrayList<>();
    for (int i = 1; i <= spec.nodes(); i++) {
      hosts.add("127.0.0.1");
    }
    return build(spec, hosts, i -> ports[3 * (i - 1)], i -> ports[3 * (i - 1) + 1], i -> ports[3 * (i - 1) + 2],
        i -> List.of(), etcd);
  }

  /**
   * The nodes' command lines. A Raft node also serves etcd's API on {@code etcdPort} (the etcdctl workload's
   * clients use it; {@code --single-writer} has none), whose endpoints go into {@code etcd}.
   */
  private static List<Node> build(ClusterSpec spec, List<String> hosts,
      java.util.function.IntUnaryOperator raftPort, java.util.function.IntUnaryOperator apiPort,
      java.util.function.IntUnaryOperator etcdPort, java.util.function.IntFunction<List<String>> prefix,
      List<String> etcd) {
    String peers = java.util.stream.IntStream.rangeClosed(1, spec.nodes())
        .mapToObj(i -> "n" + i + "=" + hosts.get(i - 1) + ":" + raftPort.applyAsInt(i))
        .collect(Collectors.joining(","));
    List<Node> out = new ArrayList<>();
    for (int i = 1; i <= spec.nodes(); i++) {
      String id = "n" + i;
      List<String> cmd = new ArrayList<>(prefix.apply(i));
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      cmd.addAll(spec.jvmOptions());
      cmd.addAll(ServerImage.jvmOptions(spec.jar()));
      cmd.addAll(List.of("-jar", spec.jar().toAbsolutePath().toString(), "server"));
      if (spec.singleWriter()) {
        cmd.add("--single-writer");
      } else {
        cmd.addAll(List.of("--id", id, "--peers", peers, "--etcd-port", Integer.toString(etcdPort.applyAsInt(i))));
        etcd.add(hosts.get(i - 1) + ":" + etcdPort.applyAsInt(i));
      }
      cmd.addAll(List.of("--api-host", hosts.get(i - 1), "--api-port",
          Integer.toString(apiPort.applyAsInt(i)), "--data-dir",
          spec.dataRoot().resolve(id).toAbsolutePath().toString()));
      cmd.addAll(spec.serverArgs());
      out.add(new Node(id, hosts.get(i - 1), apiPort.applyAsInt(i), spec.logDir().resolve(id + ".log"), cmd));
    }
    return out;
  }

  /** {@code n} distinct loopback ports free at the moment of asking (each bound, then all released). */
  static int[] freePorts(int n) throws IOException {
    List<ServerSocket> sockets = new ArrayList<>();
    try {
      int[] ports = new int[n];
      for (int i = 0; i < n; i++) {
        ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        sockets.add(s);
        ports[i] = s.getLocalPort();
      }
      return ports;
    } finally {
      for (ServerSocket s : sockets) {
        s.close();
      }
    }
  }

  /** The nodes, n1 first. */
  public List<Node> nodes() {
    return nodes;
  }

  /** The node with this id. */
  public Node node(String id) {
    return nodes.stream().filter(n -> n.id().equals(id)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no node " + id));
  }

  /** Every node's API endpoint. */
  public List<String> endpoints() {
    return nodes.stream().map(Node::endpoint).toList();
  }

  /** The nodes' etcd API endpoints, {@code host:port}, n1 first; none for {@code --single-writer}. */
  public List<String> etcdEndpoints() {
    return etcdEndpoints;
  }

  /** The namespaces, when the nodes run in them. */
  public Optional<Netns> netns() {
    return Optional.ofNullable(netns);
  }

  /** Why the nodes share loopback (and partitions are unavailable), or empty in namespace mode. */
  public Optional<String> loopbackReason() {
    return netns == null ? Optional.ofNullable(loopbackReason) : Optional.empty();
  }

  /** Resumes paused nodes, restarts dead ones and heals every partition. */
  public void healAll() throws IOException {
    if (netns != null) {
      netns.healAll();
    }
    for (Node n : nodes) {
      n.heal();
    }
  }

  /** Kills every node and removes the namespaces. Idempotent. */
  @Override
  public void close() {
    cleanup.run();
    Processes.removeAction(cleanup);
  }
}
