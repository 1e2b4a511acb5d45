package io.regent.etcdcompat;

import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.TxnRequest;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;

import io.regent.server.RegentServer;
import io.regent.server.config.ServerConfig;
import io.regent.server.ratis.RaftSetup;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Three Regent nodes in this JVM, each serving etcd's services on a port of its own (--etcd-port 0), shared by
 * every test class of the module ({@link #shared}): the classes use lease ids and names of their own, and none
 * stops, pauses or cuts a node (docs/testing.md, "Clusters").
 */
final class EtcdCompatCluster implements AutoCloseable {
  private static final Namespace NAMESPACE = Namespace.create(EtcdCompatCluster.class);
  private final Path dir;
  private final List<RegentServer> nodes = new ArrayList<>();
  private final Map<String, String> peers = new LinkedHashMap<>();

  /**
   * Resolves an {@code EtcdCompatCluster} parameter (of a {@code @BeforeAll}) to the module's cluster: started by
   * the first class that asks, kept in JUnit's root store, closed (and its directory removed) when the run ends.
   */
  static final class Shared implements ParameterResolver {
    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
      return parameter.getParameter().getType() == EtcdCompatCluster.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
      return shared(context);
    }
  }

  private static EtcdCompatCluster shared(ExtensionContext context) {
    return context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(EtcdCompatCluster.class, k -> {
      try {
        return new EtcdCompatCluster(Files.createTempDirectory("regent-etcd-compat-"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }, EtcdCompatCluster.class);
  }

  private EtcdCompatCluster(Path dir) throws IOException {
    this.dir = dir;
    for (int i = 1; i <= 3; i++) {
      peers.put("e" + i, "127.0.0.1:" + freePort());
    }
    try {
      for (String id : peers.keySet()) {
        nodes.add(RegentServer.start(ServerConfig.builder(id, dir.resolve(id)).peers(peers).apiPort(0).etcdPort(0)
            .build()));
      }
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
    await().atMost(Duration.ofSeconds(60)).until(() -> nodes.stream().anyMatch(EtcdCompatCluster::leads));
    // etcd's KV writes wait until every voter has published that it applies entry version 5; a class that runs
    // first must not meet that start-up wait: an empty Txn (a write that changes no key) goes through on each node
    for (RegentServer n : nodes) {
      await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> kvWritable(n));
    }
  }

  private static boolean kvWritable(RegentServer n) throws InterruptedException {
    ManagedChannel ch = Grpc.newChannelBuilder("127.0.0.1:" + n.etcdPort(), InsecureChannelCredentials.create())
        .build();
    try {
      KVGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS).txn(TxnRequest.getDefaultInstance());
      return true;
    } finally {
      ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private static boolean leads(RegentServer n) {
    try {
      var info = n.raft().getDivision(RaftSetup.GROUP_ID).getInfo();
      return info.isLeader() && info.isLeaderReady();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** {@code host:port} of every node's etcd-compatible services, in etcd's comma-separated form. */
  String endpoints() {
    return nodes.stream().map(n -> "127.0.0.1:" + n.etcdPort()).collect(Collectors.joining(","));
  }

  /** The etcd-compatible endpoint of a node that is not the Raft leader: calls there are forwarded. */
  String followerEndpoint() {
    return nodes.stream().filter(n -> !leads(n)).findFirst().map(n -> "127.0.0.1:" + n.etcdPort()).orElseThrow();
  }

  /** Member id of the node that leads now (its Raft leadership confirmed). */
  String leaderId() {
    return nodes.stream().filter(EtcdCompatCluster::leads).findFirst().map(n -> n.raft().getId().toString())
        .orElseThrow();
  }

  /** Member id and Raft address of every node, in start order. */
  Map<String, String> peers() {
    return peers;
  }

  /** {@code host:port} of every node's Regent API, comma-separated. */
  String apiEndpoints() {
    return nodes.stream().map(n -> "127.0.0.1:" + n.apiPort()).collect(Collectors.joining(","));
  }

  @Override
  public void close() throws IOException {
    for (RegentServer n : nodes) {
      try {
        n.close();
      } catch (Exception e) {
        throw new IllegalStateException("node did not stop", e);
      }
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
