package io.regent.server.cluster;

import io.regent.process.ChildProcess;
import io.regent.server.RegentServer;
import io.regent.server.config.ServerConfig;
import io.regent.statemachine.ratis.SnapshotFailpoint;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Regent node in a JVM of its own (this test class path), so that a test can {@code kill -9} it: the same
 * {@link RegentServer} that {@code regent server} runs, with the small snapshot threshold that the CLI does not
 * expose. The node exits when its standard input closes, so it never outlives the test JVM.
 */
final class NodeProcess implements AutoCloseable {
  /** Printed by the node once it serves. */
  static final String READY = "node ready";
  /** Printed, followed by the snapshot file, by a node started with {@code holdSnapshot} when it holds one open. */
  static final String SNAPSHOT_HELD = "snapshot held open before its checksum: ";

  private final ChildProcess process;

  private NodeProcess(ChildProcess process) {
    this.process = process;
  }

  /**
   * Starts node {@code id} of {@code peers} on {@code dataDir}, taking a snapshot every {@code snapshotThreshold}
   * applied entries, and waits until it serves.
   */
  static NodeProcess start(String id, Map<String, String> peers, int apiPort, Path dataDir, long snapshotThreshold)
      throws IOException, InterruptedException {
    return start(id, peers, apiPort, dataDir, snapshotThreshold, false);
  }

  /**
   * As {@link #start(String, Map, int, Path, long)}; with {@code holdSnapshot} the node's first snapshot write
   * stops after the snapshot file and before its {@code .md5} ({@link SnapshotFailpoint}), prints {@link
   * #SNAPSHOT_HELD} and the file, and stays there until the process dies: the moment to {@code kill -9} it.
   */
  static NodeProcess start(String id, Map<String, String> peers, int apiPort, Path dataDir, long snapshotThreshold,
      boolean holdSnapshot) throws IOException, InterruptedException {
    return start(id, peers, apiPort, -1, dataDir, snapshotThreshold, holdSnapshot);
  }

  /**
   * As {@link #start(String, Map, int, Path, long, boolean)}, serving {@code /metrics}, {@code /healthz} and
   * {@code /readyz} on {@code metricsPort} (-1: none).
   */
  static NodeProcess start(String id, Map<String, String> peers, int apiPort, int metricsPort, Path dataDir,
      long snapshotThreshold, boolean holdSnapshot) throws IOException, InterruptedException {
    List<String> peerList = new ArrayList<>();
    peers.forEach((k, v) -> peerList.add(k + "=" + v));
    List<String> cmd = new ArrayList<>(ChildProcess.javaCommand(List.of("-Xmx256m", "-XX:+UseSerialGC"),
        NodeProcess.class.getName()));
    cmd.addAll(List.of(id, String.join(",", peerList), String.valueOf(apiPort), dataDir.toString(),
        String.valueOf(snapshotThreshold), String.valueOf(holdSnapshot), String.valueOf(metricsPort)));
    ChildProcess p = ChildProcess.builder(id, cmd).keepStdinOpen()
        .captureOutput(line -> System.out.println("[" + id + "] " + line)).start();
    try {
      p.awaitLine(READY::equals, Duration.ofSeconds(60));
    } catch (IllegalStateException e) {
      p.close();
      throw new IllegalStateException(id + " did not start: " + p.lines(), e);
    }
    return new NodeProcess(p);
  }

  /** The exit code once the node has ended, else null. */
  Integer exitCode() {
    return process.exitCode();
  }

  /** Every line the node printed so far. */
  List<String> lines() {
    return process.lines();
  }

  /** SIGKILL to this process (by its pid), then waits for it to be gone. */
  void kill9() throws InterruptedException {
    process.kill9(); // no shutdown hook, no sync, no clean close
  }

  @Override
  public void close() {
    process.close();
  }

  /**
   * The node's thread dump ({@code jcmd PID Thread.print}), for a test to print when the node does not get where
   * it should; the error instead when jcmd fails.
   */
  String threadDump() {
    try {
      Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
          String.valueOf(process.pid()), "Thread.print").redirectErrorStream(true).start();
      String dump = new String(jcmd.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      jcmd.waitFor();
      return dump;
    } catch (IOException e) {
      return "no thread dump: " + e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "no thread dump: interrupted";
    }
  }

  /** The snapshot file a {@code holdSnapshot} node printed it holds open, or null. */
  String heldSnapshot() {
    return lines().stream().filter(l -> l.startsWith(SNAPSHOT_HELD)).map(l -> l.substring(SNAPSHOT_HELD.length()))
        .findFirst().orElse(null);
  }

  /** The node: {@code ID PEERS(id=host:port,...) API_PORT DATA_DIR SNAPSHOT_THRESHOLD HOLD_SNAPSHOT METRICS_PORT}. */
  public static void main(String[] args) throws Exception {
    if (Boolean.parseBoolean(args[5])) {
      CountDownLatch never = new CountDownLatch(1);
      SnapshotFailpoint.beforeChecksum(snapshot -> {
        System.out.println(SNAPSHOT_HELD + snapshot);
        System.out.flush();
        try {
          never.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
    }
    Map<String, String> peers = new LinkedHashMap<>();
    for (String p : args[1].split(",")) {
      String[] kv = p.split("=", 2);
      peers.put(kv[0], kv[1]);
    }
    ServerConfig config = ServerConfig.builder(args[0], Path.of(args[3])).peers(peers)
        .apiPort(Integer.parseInt(args[2])).snapshots(Long.parseLong(args[4]), 8L << 20)
        .metricsPort(Integer.parseInt(args[6])).build();
    // as regent server does: serve until told to stop, or exit with its code once the Raft division stopped
    AtomicInteger code = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(1);
    try (RegentServer server = RegentServer.start(config)) {
      server.onDivisionStopped(reason -> {
        code.set(RegentServer.EXIT_DIVISION_STOPPED);
        done.countDown();
      });
      System.out.println(READY);
      System.out.flush();
      Thread stdin = new Thread(() -> {
        try {
          while (System.in.read() >= 0) {
            // serve until the test closes our standard input (or kills us)
          }
        } catch (IOException e) {
          // the test is gone: stop as well
        }
        done.countDown();
      }, "stdin");
      stdin.setDaemon(true);
      stdin.start();
      done.await();
    }
    System.exit(code.get());
  }
}
