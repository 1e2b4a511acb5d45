package io.regent.server.cluster;

import static org.awaitility.Awaitility.await;

import io.regent.server.RegentServer;
import io.regent.server.ServerConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A Regent node in a JVM of its own (this test class path), so that a test can {@code kill -9} it: the same
 * {@link RegentServer} that {@code regent server} runs, with the small snapshot threshold that the CLI does not
 * expose. The node exits when its standard input closes, so it never outlives the test JVM.
 */
final class NodeProcess implements AutoCloseable {
  /** Printed by the node once it serves. */
  static final String READY = "node ready";

  private final Process process;
  private final List<String> lines = new CopyOnWriteArrayList<>();

  private NodeProcess(Process process, String label) {
    this.process = process;
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
          StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          lines.add(line);
          System.out.println("[" + label + "] " + line);
        }
      } catch (IOException e) {
        // the process ended
      }
    }, "output-" + label);
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts node {@code id} of {@code peers} on {@code dataDir}, taking a snapshot every {@code snapshotThreshold}
   * applied entries, and waits until it serves.
   */
  static NodeProcess start(String id, Map<String, String> peers, int apiPort, Path dataDir, long snapshotThreshold)
      throws IOException {
    String java = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin",
        "java").toString());
    List<String> peerList = new ArrayList<>();
    peers.forEach((k, v) -> peerList.add(k + "=" + v));
    List<String> cmd = List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
        NodeProcess.class.getName(), id, String.join(",", peerList), String.valueOf(apiPort), dataDir.toString(),
        String.valueOf(snapshotThreshold));
    NodeProcess p = new NodeProcess(new ProcessBuilder(cmd).redirectErrorStream(true).start(), id);
    await(id + " serving").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
        .until(() -> p.lines.contains(READY) || !p.process.isAlive());
    if (!p.lines.contains(READY)) {
      throw new IllegalStateException(id + " did not start: " + p.lines);
    }
    return p;
  }

  /** Every line the node printed so far. */
  List<String> lines() {
    return List.copyOf(lines);
  }

  /** SIGKILL to this process (by its pid), then waits for it to be gone. */
  void kill9() throws InterruptedException {
    process.destroyForcibly(); // SIGKILL on Linux: no shutdown hook, no sync, no clean close
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("pid " + process.pid() + " survived SIGKILL");
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill9();
    }
  }

  /** The node: {@code ID PEERS(id=host:port,...) API_PORT DATA_DIR SNAPSHOT_THRESHOLD}. */
  public static void main(String[] args) throws Exception {
    Map<String, String> peers = new LinkedHashMap<>();
    for (String p : args[1].split(",")) {
      String[] kv = p.split("=", 2);
      peers.put(kv[0], kv[1]);
    }
    ServerConfig config = ServerConfig.builder(args[0], Path.of(args[3])).peers(peers)
        .apiPort(Integer.parseInt(args[2])).snapshots(Long.parseLong(args[4]), 8L << 20).build();
    try (RegentServer server = RegentServer.start(config)) {
      System.out.println(READY);
      System.out.flush();
      while (System.in.read() >= 0) {
        // serve until the test closes our standard input (or kills us)
      }
    }
    System.exit(0);
  }
}
