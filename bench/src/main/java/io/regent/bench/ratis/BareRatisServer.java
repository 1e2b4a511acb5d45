package io.regent.bench.ratis;

import io.regent.server.config.ServerConfig;
import io.regent.server.ratis.RaftSetup;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;

/**
 * One node of the bare-Ratis target: {@link CountingStateMachine} under exactly the Ratis properties a Regent
 * node of the same peers would use ({@link RaftSetup#properties}). Started by {@code scripts/ratis-cluster.sh}:
 *
 * <pre>java -cp regent.jar io.regent.bench.ratis.BareRatisServer ID DATA_DIR HOST:PORT[,HOST:PORT...]</pre>
 *
 * <p>Peer {@code i} of the list is {@code n<i>}; ID is one of them. Runs until killed.
 */
public final class BareRatisServer {
  private static final String FJ_PARALLELISM = "java.util.concurrent.ForkJoinPool.common.parallelism";

  private BareRatisServer() {
  }

  /** Starts the node and blocks; exit 2 on bad arguments. */
  public static void main(String[] args) throws IOException, InterruptedException {
    if (args.length != 3) {
      System.err.println("usage: BareRatisServer ID DATA_DIR HOST:PORT[,HOST:PORT...]");
      System.exit(2);
    }
    Map<String, String> peers = peers(List.of(args[2].split(",")));
    if (!peers.containsKey(args[0])) {
      System.err.println("id " + args[0] + " is not one of " + peers.keySet());
      System.exit(2);
    }
    // As `regent server` does (Regent.main): Ratis completes its futures on the common ForkJoinPool, whose
    // default parallelism is one thread on a 2-core machine; the floor must run under the same JVM setting.
    if (System.getProperty(FJ_PARALLELISM) == null) {
      System.setProperty(FJ_PARALLELISM, String.valueOf(Math.max(2, Runtime.getRuntime().availableProcessors())));
    }
    ServerConfig config = ServerConfig.of(args[0], peers, 0, Path.of(args[1]));
    RaftServer server = RaftServer.newBuilder().setServerId(RaftPeerId.valueOf(args[0]))
        .setGroup(RaftSetup.group(config)).setProperties(RaftSetup.properties(config))
        .setStateMachine(new CountingStateMachine()).setOption(RaftStorage.StartupOption.RECOVER).build();
    server.start();
    Thread.currentThread().join();
  }

  /** {@code n0 -> endpoints[0]}, {@code n1 -> endpoints[1]}, ... in order. */
  public static Map<String, String> peers(List<String> endpoints) {
    Map<String, String> peers = new LinkedHashMap<>();
    for (int i = 0; i < endpoints.size(); i++) {
      peers.put("n" + i, endpoints.get(i).trim());
    }
    return peers;
  }
}
