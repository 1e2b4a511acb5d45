package io.regent.etcdcompat;

import static org.awaitility.Awaitility.await;

import io.regent.server.RegentServer;
import io.regent.server.config.ServerConfig;
import io.regent.server.ratis.RaftSetup;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Three Regent nodes in this JVM, each serving etcd's services on a port of its own (--etcd-port 0). */
final class EtcdCompatCluster implements AutoCloseable {
  private final List<RegentServer> nodes = new ArrayList<>();

  EtcdCompatCluster(Path dir) throws IOException {
    Map<String, String> peers = new LinkedHashMap<>();
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

  /** {@code host:port} of every node's Regent API, comma-separated. */
  String apiEndpoints() {
    return nodes.stream().map(n -> "127.0.0.1:" + n.apiPort()).collect(Collectors.joining(","));
  }

  @Override
  public void close() {
    for (RegentServer n : nodes) {
      try {
        n.close();
      } catch (Exception e) {
        throw new IllegalStateException("node did not stop", e);
      }
    }
  }
}
