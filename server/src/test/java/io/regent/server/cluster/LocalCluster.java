package io.regent.server.cluster;

import static org.awaitility.Awaitility.await;

import io.regent.client.RegentClient;
import io.regent.server.RegentServer;
import io.regent.server.config.ServerConfig;
import io.regent.server.ratis.RaftSetup;
import io.regent.statemachine.replica.ReplicaView;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.UnaryOperator;

/**
 * N Regent nodes in this JVM on loopback. Every Raft link i→j goes through its own {@link TcpProxy}, so a
 * node can be isolated from its peers while clients still reach its API.
 */
public final class LocalCluster implements AutoCloseable {
  /** How long a node's stop may run before {@link #stopNode} prints every thread's stack. */
  private static final Duration STOP_REPORT = Duration.ofSeconds(60);
  private final int size;
  private final Path dir;
  private final IntFunction<UnaryOperator<ServerConfig.Builder>> tweak;
  private final int[] raftPorts;
  private final int[] apiPorts;
  private final TcpProxy[][] links;
  private final RegentServer[] nodes;
  private final List<RegentClient> clients = new ArrayList<>();

  private LocalCluster(int size, Path dir, IntFunction<UnaryOperator<ServerConfig.Builder>> tweak) throws IOException {
    this.size = size;
    this.dir = dir;
    this.tweak = tweak;
    this.raftPorts = new int[size];
    this.apiPorts = new int[size];
    for (int i = 0; i < size; i++) {
      raftPorts[i] = FreePorts.next();
      apiPorts[i] = FreePorts.next();
    }
    this.links = new TcpProxy[size][size];
    for (int i = 0; i < size; i++) {
      for (int j = 0; j < size; j++) {
        if (i != j) {
          links[i][j] = new TcpProxy(raftPorts[j]);
        }
      }
    }
    this.nodes = new RegentServer[size];
  }

  /** Starts {@code size} nodes under {@code dir}, each config passed through {@code tweak}. */
  public static LocalCluster start(int size, Path dir, UnaryOperator<ServerConfig.Builder> tweak) throws IOException {
    return startEach(size, dir, i -> tweak);
  }

  /** Starts {@code size} nodes under {@code dir}, node i's config passed through {@code tweak.apply(i)}. */
  public static LocalCluster startEach(int size, Path dir, IntFunction<UnaryOperator<ServerConfig.Builder>> tweak)
      throws IOException {
    LocalCluster c = new LocalCluster(size, dir, tweak);
    for (int i = 0; i < size; i++) {
      c.startNode(i);
    }
    return c;
  }

  /** Sets up {@code size} nodes under {@code dir} with default settings and starts none ({@link #startNode}). */
  public static LocalCluster unstarted(int size, Path dir) throws IOException {
    return new LocalCluster(size, dir, i -> UnaryOperator.identity());
  }

  /** Starts {@code size} nodes with default settings. */
  public static LocalCluster start(int size, Path dir) throws IOException {
    return start(size, dir, UnaryOperator.identity());
  }

  /** Node ids are n0..n(size-1). */
  public static String id(int i) {
    return "n" + i;
  }

  /** Starts (or restarts, on its data) node {@code i}. */
  public void startNode(int i) throws IOException {
    Map<String, String> peers = new LinkedHashMap<>();
    for (int j = 0; j < size; j++) {
      int port = i == j ? raftPorts[j] : links[i][j].port();
      peers.put(id(j), "127.0.0.1:" + port);
    }
    nodes[i] = RegentServer.start(tweak.apply(i).apply(ServerConfig.builder(id(i), dir.resolve(id(i))).peers(peers)
        .apiPort(apiPorts[i])).build());
  }

  /**
   * Stops node {@code i} (its data stays). A stop still running after {@link #STOP_REPORT} prints every thread's
   * stack to the test's output: a removed leader's stop can wait for good in Ratis (MembershipChangeTest;
   * docs/ratis.md §14), and the test's own timeout shows only the test's thread.
   */
  public void stopNode(int i) throws Exception {
    if (nodes[i] != null) {
      // completes when the report is due; cancelled once the stop returns, which skips the report
      CompletableFuture<Void> report = new CompletableFuture<>();
      report.completeOnTimeout(null, STOP_REPORT.toMillis(), TimeUnit.MILLISECONDS).thenRun(() ->
          System.out.println("node " + id(i) + " still stopping after " + STOP_REPORT + ":\n" + threadStacks()));
      try {
        nodes[i].close();
      } finally {
        report.cancel(false);
      }
      nodes[i] = null;
    }
  }

  /** Every live thread's name and stack, as {@code jcmd Thread.print} would show them. */
  private static String threadStacks() {
    StringBuilder out = new StringBuilder();
    Thread.getAllStackTraces().forEach((t, stack) -> {
      out.append('"').append(t.getName()).append("\" ").append(t.getState()).append('\n');
      for (StackTraceElement e : stack) {
        out.append("\tat ").append(e).append('\n');
      }
    });
    return out.toString();
  }

  /** Cuts every Raft link to and from node {@code i}; its API stays reachable. */
  public void isolate(int i) {
    for (int j = 0; j < size; j++) {
      if (i != j) {
        links[i][j].setBlocked(true);
        links[j][i].setBlocked(true);
      }
    }
  }

  /**
   * Freezes every Raft link to and from node {@code i}: connections stay open but nothing passes, as when its
   * process is stopped ({@code kill -STOP}); its API stays reachable. {@link #thaw} releases them.
   */
  public void freeze(int i) {
    setFrozen(i, true);
  }

  /** Releases the links {@link #freeze} held; what was sent meanwhile is delivered. */
  public void thaw(int i) {
    setFrozen(i, false);
  }

  private void setFrozen(int i, boolean frozen) {
    for (int j = 0; j < size; j++) {
      if (i != j) {
        links[i][j].setFrozen(frozen);
        links[j][i].setFrozen(frozen);
      }
    }
  }

  /** Restores every Raft link. */
  public void heal() {
    for (int i = 0; i < size; i++) {
      for (int j = 0; j < size; j++) {
        if (i != j) {
          links[i][j].setBlocked(false);
        }
      }
    }
  }

  /** Waits for a leader that all running, connected nodes agree on; returns its index. */
  public int awaitLeader() {
    return await().atMost(Duration.ofSeconds(30)).until(this::currentLeader, l -> l >= 0);
  }

  /**
   * Waits until each of {@code cells} cells (docs/architecture.md §14) has a ready leader among the running nodes:
   * {@link #awaitLeader} waits for cell 0's only, and the other cells elect at their own pace.
   */
  public void awaitCellLeaders(int cells) {
    await().atMost(Duration.ofSeconds(60)).until(() -> java.util.stream.IntStream.range(0, cells).allMatch(c -> {
      for (RegentServer n : nodes) {
        try {
          if (n != null && n.raft().getDivision(RaftSetup.groupId(c)).getInfo().isLeaderReady()) {
            return true;
          }
        } catch (IOException e) {
          // not (yet) a division of this node
        }
      }
      return false;
    }));
  }

  /**
   * Waits for a ready leader whose state holds the published timing of every node and that knows every voter's
   * clock rate to be within the bound: only then can it hold its leadership lease (docs/architecture.md §8.1);
   * returns its index.
   */
  public int awaitLeaseLeader() {
    return await().atMost(Duration.ofSeconds(30)).until(() -> {
      int l = currentLeader();
      if (l < 0) {
        return -1;
      }
      ReplicaView replica = (ReplicaView) nodes[l].raft().getDivision(RaftSetup.GROUP_ID).getStateMachine();
      boolean ratesKnown = nodes[l].clockRates().map(r -> r.withinBound()).orElse(true);
      return ratesKnown && replica.read(txn -> txn.memberTimings().size()) == size ? l : -1;
    }, l -> l >= 0);
  }

  /** Index of a running node that is leader and ready, or -1. */
  public int currentLeader() {
    for (int i = 0; i < size; i++) {
      if (nodes[i] != null) {
        try {
          var info = nodes[i].raft().getDivision(RaftSetup.GROUP_ID).getInfo();
          if (info.isLeader() && info.isLeaderReady()) {
            return i;
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    return -1;
  }

  /** The running node {@code i}. */
  public RegentServer node(int i) {
    return nodes[i];
  }

  /** API endpoint of node {@code i}. */
  public String endpoint(int i) {
    return "127.0.0.1:" + apiPorts[i];
  }

  /**
   * A client of node {@code i} only (closed with the cluster): it learns no other endpoint, so its calls reach
   * node {@code i} or fail.
   */
  public RegentClient clientOf(int i) {
    RegentClient c = RegentClient.builder().endpoints(List.of(endpoint(i))).discoverEndpoints(false).build();
    clients.add(c);
    return c;
  }

  /** A client of every node (closed with the cluster). */
  public RegentClient client() {
    List<String> all = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      all.add(endpoint(i));
    }
    RegentClient c = RegentClient.connect(all);
    clients.add(c);
    return c;
  }

  /** Number of nodes. */
  public int size() {
    return size;
  }

  @Override
  public void close() throws Exception {
    clients.forEach(RegentClient::close);
    for (int i = 0; i < size; i++) {
      stopNode(i);
    }
    for (TcpProxy[] row : links) {
      for (TcpProxy p : row) {
        if (p != null) {
          p.close();
        }
      }
    }
  }

}
