package io.regent.testing;

import static org.awaitility.Awaitility.await;

import io.regent.client.RegentClient;
import io.regent.server.RegentServer;
import io.regent.server.config.ServerConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A local Regent cluster for tests (Curator's {@code TestingCluster}, for Regent): {@code size} nodes with default
 * settings, in this JVM, on loopback ports, their data in a temporary directory removed on {@link #close()}.
 *
 * <p>Why in this JVM and not {@code regent.jar} processes: the nodes are the same {@code RegentServer} that
 * {@code regent server} runs, a test needs no jar on disk nor a {@code java} to start, a start takes about as long
 * as the nodes' first election (seconds), and nothing can outlive the test JVM. The cost is the server's
 * dependencies (Apache Ratis, LMDB's native library) on the test classpath. A test that stops, pauses or cuts
 * nodes needs processes or proxies of its own; this cluster is for code that uses Regent, not for Regent's faults.
 *
 * <pre>
 *   try (LocalRegentCluster cluster = LocalRegentCluster.start(3);
 *        RegentClient client = RegentClient.connect(cluster.endpoints())) { ... }
 * </pre>
 *
 * With JUnit 5, {@link RegentClusterExtension} starts one for the whole test run.
 */
public final class LocalRegentCluster implements AutoCloseable {
  /** How long {@link #start} waits for a leader that every node knows; a 3-node start takes seconds. */
  static final Duration READY = Duration.ofSeconds(60);
  /**
   * Raft ports come from here: below Linux's ephemeral range (32768 on), so that an outgoing connection cannot
   * take one between the check that it is free and the node binding it.
   */
  private static final int FIRST_PORT = 28_000;
  private static final int LAST_PORT = 32_700;

  private final Path dir;
  private final List<RegentServer> nodes;
  private final String endpoints;

  private LocalRegentCluster(Path dir, List<RegentServer> nodes) {
    this.dir = dir;
    this.nodes = nodes;
    this.endpoints = nodes.stream().map(n -> "127.0.0.1:" + n.apiPort()).collect(Collectors.joining(","));
  }

  /**
   * Starts {@code size} nodes (1 to 7; 3 as in production, what {@link RegentClusterExtension} starts) and waits
   * until they have elected a leader and every node publishes its API address.
   *
   * @throws IllegalArgumentException for a size outside 1..7
   * @throws IOException when a node cannot start (its data directory, a port taken meanwhile)
   * @throws org.awaitility.core.ConditionTimeoutException when no leader is elected within 60 s
   */
  public static LocalRegentCluster start(int size) throws IOException {
    if (size < 1 || size > 7) {
      throw new IllegalArgumentException("a local cluster has 1 to 7 nodes, not " + size);
    }
    Path dir = Files.createTempDirectory("regent-test-cluster-");
    Map<String, String> peers = new LinkedHashMap<>();
    for (int i = 1; i <= size; i++) {
      peers.put("n" + i, "127.0.0.1:" + freePort(peers.values()));
    }
    // All at once, as `regent cluster up` does: a node's start asks its peers whether they knew it (a voter that
    // lost its data must not rejoin) and waits for their answer, so one at a time each would wait seconds.
    List<CompletableFuture<RegentServer>> starting = new ArrayList<>();
    for (String id : peers.keySet()) {
      // API port 0: the node binds a free one and reports it (apiPort()).
      ServerConfig config = ServerConfig.builder(id, dir.resolve(id)).peers(peers).apiPort(0).build();
      starting.add(CompletableFuture.supplyAsync(() -> {
        try {
          return RegentServer.start(config);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }));
    }
    List<RegentServer> nodes = new ArrayList<>();
    RuntimeException failed = null;
    for (CompletableFuture<RegentServer> node : starting) {
      try {
        nodes.add(node.join());
      } catch (CompletionException e) {
        failed = e.getCause() instanceof RuntimeException r ? r : e;
      }
    }
    LocalRegentCluster cluster = new LocalRegentCluster(dir, nodes);
    try {
      if (failed != null) {
        throw failed;
      }
      cluster.awaitReady();
      return cluster;
    } catch (RuntimeException e) {
      cluster.close(); // the nodes that did start, and the directory
      if (e instanceof UncheckedIOException io) {
        throw io.getCause();
      }
      throw e;
    }
  }

  /** The nodes' API endpoints, {@code host:port,...}: what {@link RegentClient#connect(String)} takes. */
  public String endpoints() {
    return endpoints;
  }

  /** The number of nodes. */
  public int size() {
    return nodes.size();
  }

  /** Stops every node and removes their data. */
  @Override
  public void close() {
    for (RegentServer node : nodes) {
      try {
        node.close();
      } catch (Exception e) {
        // a node that fails to stop cleanly must not keep the others running
      }
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A leader is known and every member has published its API address (clients route by it). */
  private void awaitReady() {
    try (RegentClient client = RegentClient.connect(endpoints)) {
      await().atMost(READY).ignoreExceptions().until(() -> {
        var s = client.cluster().status();
        return !s.getLeader().isEmpty() && s.getMembersCount() == nodes.size()
            && s.getMembersList().stream().noneMatch(m -> m.getApiAddress().isEmpty());
      });
    }
  }

  private static int freePort(Collection<String> taken) throws IOException {
    for (int tries = 0; ; tries++) {
      int port = FIRST_PORT + ThreadLocalRandom.current().nextInt(LAST_PORT - FIRST_PORT);
      if (taken.contains("127.0.0.1:" + port)) {
        continue;
      }
      try (ServerSocket s = new ServerSocket()) {
        s.bind(new InetSocketAddress("127.0.0.1", port));
        return port;
      } catch (IOException e) {
        if (tries > 100) {
          throw e;
        }
      }
    }
  }
}
