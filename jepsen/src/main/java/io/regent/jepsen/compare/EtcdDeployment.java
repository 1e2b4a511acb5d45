package io.regent.jepsen.compare;

import io.etcd.jetcd.api.MaintenanceGrpc;
import io.etcd.jetcd.api.StatusRequest;
import io.etcd.jetcd.api.StatusResponse;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.regent.jepsen.cluster.DataDirs;
import io.regent.jepsen.cluster.Netns;
import io.regent.jepsen.cluster.Node;
import io.regent.jepsen.cluster.Processes;
import io.regent.jepsen.cluster.RunLock;
import io.regent.jepsen.cluster.Shell;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Debian's etcd ({@code etcd-server}), 3 members with etcd's default settings (heartbeat 100 ms, election
 * 1000 ms, fsync on every commit), each in the namespace the Jepsen runner would give a Regent node
 * ({@link Netns}), so the same kills, pauses and partitions apply; on loopback with free ports when
 * namespaces are unavailable.
 */
final class EtcdDeployment implements Deployment {
  private static final int NODES = 3;
  private final List<Node> nodes;
  private final Netns netns;
  private final Runnable cleanup;

  private EtcdDeployment(List<Node> nodes, Netns netns) {
    this.nodes = nodes;
    this.netns = netns;
    this.cleanup = () -> {
      nodes.forEach(Node::kill);
      if (netns != null) {
        netns.close();
      }
    };
    Processes.addAction(cleanup);
  }

  /** The first line of {@code etcd --version}, or empty when etcd is not installed. */
  static Optional<String> version() {
    Shell.Outcome v = Shell.run("etcd", "--version");
    return v.ok() ? Optional.of(v.output().split("\n")[0].trim()) : Optional.empty();
  }

  /**
   * Starts 3 new members with data and logs under {@code dir}; returns once they run (see {@link Health}). Data an
   * earlier run left there is deleted first: it would be another cluster, whose members may have had other addresses
   * (another network slot), and would never elect a leader.
   */
  static EtcdDeployment start(Path dir, RunLock lock) throws IOException {
    Files.createDirectories(dir);
    for (int i = 1; i <= NODES; i++) {
      DataDirs.delete(dir.resolve("e" + i));
    }
    Netns netns = null;
    if (Netns.unavailableReason().isEmpty()) {
      Processes.addAction(() -> Netns.cleanup(lock.slot()));
      netns = Netns.create(lock, NODES);
    }
    List<String> hosts = new ArrayList<>();
    int[] client = new int[NODES];
    int[] peer = new int[NODES];
    for (int i = 1; i <= NODES; i++) {
      hosts.add(netns != null ? netns.address(i) : "127.0.0.1");
      client[i - 1] = netns != null ? 2379 : freePort();
      peer[i - 1] = netns != null ? 2380 : freePort();
    }
    StringBuilder cluster = new StringBuilder();
    for (int i = 1; i <= NODES; i++) {
      cluster.append(i > 1 ? "," : "").append("e").append(i).append("=http://").append(hosts.get(i - 1))
          .append(':').append(peer[i - 1]);
    }
    List<Node> nodes = new ArrayList<>();
    for (int i = 1; i <= NODES; i++) {
      List<String> cmd = new ArrayList<>();
      if (netns != null) {
        cmd.addAll(List.of("ip", "netns", "exec", netns.namespace(i)));
      }
      String clientUrl = "http://" + hosts.get(i - 1) + ":" + client[i - 1];
      String peerUrl = "http://" + hosts.get(i - 1) + ":" + peer[i - 1];
      cmd.addAll(List.of("etcd", "--name", "e" + i, "--data-dir", dir.resolve("e" + i).toAbsolutePath().toString(),
          "--listen-client-urls", clientUrl, "--advertise-client-urls", clientUrl,
          "--listen-peer-urls", peerUrl, "--initial-advertise-peer-urls", peerUrl,
          "--initial-cluster", cluster.toString(), "--initial-cluster-state", "new",
          "--initial-cluster-token", "regent-compare"));
      nodes.add(new Node("e" + i, hosts.get(i - 1), client[i - 1], dir.resolve("e" + i + ".log"), cmd));
    }
    EtcdDeployment d = new EtcdDeployment(List.copyOf(nodes), netns);
    try {
      for (Node n : nodes) {
        n.start();
      }
    } catch (IOException | RuntimeException e) {
      d.close();
      throw e;
    }
    return d;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Override
  public String label() {
    return "etcd-3";
  }

  @Override
  public String kind() {
    return "etcd";
  }

  @Override
  public boolean singleWriter() {
    return false;
  }

  @Override
  public List<Node> nodes() {
    return nodes;
  }

  @Override
  public Optional<Netns> netns() {
    return Optional.ofNullable(netns);
  }

  /** The Raft leader, from the members' own {@code Maintenance.Status} (member ids matched to nodes). */
  @Override
  public Optional<Node> leader() {
    Map<Long, Node> byMember = new HashMap<>();
    long leader = 0;
    for (Node n : nodes) {
      if (!n.alive() || n.paused()) {
        continue;
      }
      String[] hp = n.endpoint().split(":");
      ManagedChannel ch = NettyChannelBuilder.forAddress(hp[0], Integer.parseInt(hp[1])).usePlaintext().build();
      try {
        StatusResponse s = MaintenanceGrpc.newBlockingStub(ch).withDeadlineAfter(3, TimeUnit.SECONDS)
            .status(StatusRequest.getDefaultInstance());
        byMember.put(s.getHeader().getMemberId(), n);
        leader = s.getLeader() != 0 ? s.getLeader() : leader;
      } catch (RuntimeException e) {
        // not answering: ask the next member
      } finally {
        ch.shutdownNow();
      }
    }
    return Optional.ofNullable(byMember.get(leader));
  }

  @Override
  public void close() {
    cleanup.run();
    Processes.removeAction(cleanup);
  }
}
