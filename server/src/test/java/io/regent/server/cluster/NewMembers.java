package io.regent.server.cluster;

import io.regent.client.RegentClient;
import io.regent.server.Joiner;
import io.regent.server.RegentServer;
import io.regent.server.config.ServerConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Nodes started outside a {@link LocalCluster}'s initial voters ({@link RegentServer#startMember}), each with its
 * own ports and data dir under {@code dir}; they can join, stop and restart on their data. Closes what it started.
 */
final class NewMembers implements AutoCloseable {
  private final Path dir;
  private final UnaryOperator<ServerConfig.Builder> tweak;
  private final Map<String, ServerConfig> configs = new LinkedHashMap<>();
  private final Map<String, RegentServer> running = new LinkedHashMap<>();

  NewMembers(Path dir, UnaryOperator<ServerConfig.Builder> tweak) {
    this.dir = dir;
    this.tweak = tweak;
  }

  /** Starts a new node {@code id} with an empty data dir (it knows no peers yet). */
  RegentServer start(String id) throws IOException {
    ServerConfig c = tweak.apply(ServerConfig.builder(id, dir.resolve(id))
        .raftAddress("127.0.0.1:" + FreePorts.next()).apiPort(FreePorts.next())).build();
    configs.put(id, c);
    return restart(id);
  }

  /** Starts {@code id} again on its data, with no peers and no join: what it knows comes from its storage. */
  RegentServer restart(String id) throws IOException {
    RegentServer s = RegentServer.startMember(configs.get(id));
    running.put(id, s);
    return s;
  }

  /** Starts a new node and joins it to the cluster behind {@code cluster} (learner, catch-up, promotion). */
  RegentServer join(String id, RegentClient cluster) throws Exception {
    RegentServer s = start(id);
    Joiner.join(s, cluster, endpoint(id), 120_000);
    return s;
  }

  /** API endpoint of {@code id}. */
  String endpoint(String id) {
    return "127.0.0.1:" + configs.get(id).apiPort();
  }

  /** Raft address of {@code id}. */
  String raftAddress(String id) {
    return configs.get(id).peers().get(id);
  }

  /** The running node {@code id}. */
  RegentServer node(String id) {
    return running.get(id);
  }

  /** Stops {@code id} (its data stays). */
  void stop(String id) throws Exception {
    RegentServer s = running.remove(id);
    if (s != null) {
      s.close();
    }
  }

  @Override
  public void close() throws Exception {
    for (String id : List.copyOf(running.keySet())) {
      stop(id);
    }
  }

}
