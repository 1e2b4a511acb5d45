package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.regent.api.v1.ClusterGrpc;
import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.StatusRequest;
import io.regent.client.RegentClient;
import io.regent.server.RegentServer;
import io.regent.server.config.ServerConfig;
import io.regent.server.metrics.RegentMetrics;
import io.regent.statemachine.store.DataDirFull;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node whose data directory fills up while it takes writes (issue #22 item 8; docs/operations.md, "Disk
 * full"): the node is a real process with its data directory on a 16 MiB tmpfs ({@link SmallFilesystem}), a
 * follower of two in-process nodes that keep taking campaigns. Once a filler file takes the last byte, the node
 * says "data directory full" in one line and exits with {@link RegentServer#EXIT_DIVISION_STOPPED} (so that its
 * supervisor restarts it) instead of living on with a stopped Raft division and a {@code /healthz} of 200; nothing
 * acknowledged is lost; freed and restarted, it catches up and holds every acknowledged holder. The data
 * directory's gauges follow a filesystem filling and freed.
 */
@Tag("cluster")
class DiskFullTest {
  static final long NEVER = Long.MAX_VALUE / 2;

  @TempDir
  Path dir;
  final List<RegentServer> servers = new ArrayList<>();
  final List<RegentClient> clients = new ArrayList<>();
  NodeProcess victim;
  SmallFilesystem small;

  @AfterEach
  void stop() throws Exception {
    try {
      clients.forEach(RegentClient::close);
      if (victim != null) {
        victim.close();
      }
      for (RegentServer s : servers) {
        s.close();
      }
    } finally {
      if (small != null) {
        small.close(); // before @TempDir's cleanup, whatever failed above
      }
    }
  }

  @Test
  void aFollowerWhoseDataDirectoryFillsSaysSoExitsAndCatchesUpOnceFreed() throws Exception {
    small = SmallFilesystem.mount(dir.resolve("small"), 16);
    Map<String, String> peers = new LinkedHashMap<>();
    int[] api = new int[3];
    for (int i = 0; i < 3; i++) {
      peers.put(LocalCluster.id(i), "127.0.0.1:" + FreePorts.next());
      api[i] = FreePorts.next();
    }
    for (int i = 0; i < 2; i++) { // the quorum that keeps writing while the third cannot
      servers.add(RegentServer.start(ServerConfig.builder(LocalCluster.id(i), dir.resolve(LocalCluster.id(i)))
          .peers(peers).apiPort(api[i]).snapshots(NEVER, 8L << 20).build()));
    }
    RegentClient client = connect("127.0.0.1:" + api[0], "127.0.0.1:" + api[1]);
    await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(
        () -> !client.cluster().status().getLeader().isEmpty());
    Path victimDir = small.root().resolve("n2");
    int metricsPort = FreePorts.next();
    victim = NodeProcess.start("n2", peers, api[2], metricsPort, victimDir, NEVER, false);

    Map<String, LeaderKey> acked = new ConcurrentHashMap<>();
    for (int i = 0; i < 50; i++) {
      acked.put("before-" + i, client.elections().campaign("before-" + i, client.leases().grant(600_000),
          ByteString.EMPTY));
    }
    // n2 has followed the leader's term before its disk fills: Ratis 3.3.0 writes raft-meta (term, vote) through
    // an AtomicFileOutputStream whose close renames a short write into place, so a term change on a full disk
    // leaves it empty and the node cannot start again (docs/operations.md, "Disk full"): not what this test is about
    ManagedChannel toVictim = ManagedChannelBuilder.forAddress("127.0.0.1", api[2]).usePlaintext().build();
    try {
      long committed = client.cluster().status().getCommitIndex();
      await("n2 caught up before the fill").atMost(Duration.ofSeconds(60)).ignoreExceptions()
          .until(() -> ClusterGrpc.newBlockingStub(toVictim).status(StatusRequest.newBuilder().setSerializable(true)
              .build()).getAppliedIndex() >= committed);
    } finally {
      toVictim.shutdownNow();
    }
    AtomicBoolean writing = new AtomicBoolean(true);
    Thread writer = new Thread(() -> {
      byte[] value = new byte[1024];
      for (int i = 0; writing.get(); i++) {
        try {
          String name = "w-" + i;
          acked.put(name, client.elections().campaign(name, client.leases().grant(600_000),
              ByteString.copyFrom(value)));
        } catch (RuntimeException e) {
          // not acknowledged: nothing to check for this name
        }
      }
    }, "writer");
    writer.start();
    try {
      small.fill();
      try {
        await("n2 exits once its data directory is full").atMost(Duration.ofSeconds(60))
            .until(() -> victim.exitCode() != null);
      } catch (ConditionTimeoutException e) {
        throw new AssertionError("n2 still runs 60 s after its data directory filled; /healthz "
            + healthz(metricsPort) + "; its errors: " + errors(victim), e);
      }
      assertThat(victim.exitCode()).as("n2's exit code; its errors: " + errors(victim))
          .isEqualTo(RegentServer.EXIT_DIVISION_STOPPED);
      List<String> full = victim.lines().stream().filter(l -> l.contains("data directory full")).toList();
      assertThat(full).as("the line that says why, in " + errors(victim)).isNotEmpty();
      assertThat(full.get(0)).contains(victimDir.toString()).contains("bytes free");

      small.free();
      victim = NodeProcess.start("n2", peers, api[2], metricsPort, victimDir, NEVER, false);
      assertThat(healthz(metricsPort)).isEqualTo(200);
    } finally {
      writing.set(false);
      writer.join();
    }

    // n2's own state, read locally (serializable): it holds every acknowledged holder and lease
    assertThat(acked.size()).isGreaterThan(50);
    ReplicaCheck.holdsEveryAcknowledged(api[2], client.cluster().status().getCommitIndex(), acked,
        () -> "its errors: " + errors(victim));
  }

  @Test
  void theGaugesSayFullWhileTheFilesystemIs() throws Exception {
    small = SmallFilesystem.mount(dir.resolve("small"), 4);
    try (RegentMetrics metrics = new RegentMetrics("n0")) {
      metrics.bindDataDir(small.root(), Optional::empty);
      assertThat(gauge(metrics, "regent_data_dir_full")).isZero();
      assertThat(gauge(metrics, "regent_data_dir_free_bytes")).isGreaterThan(DataDirFull.FULL_BYTES);
      small.fill();
      assertThat(gauge(metrics, "regent_data_dir_full")).isEqualTo(1);
      assertThat(gauge(metrics, "regent_data_dir_free_bytes")).isLessThan(DataDirFull.FULL_BYTES);
      small.free();
      assertThat(gauge(metrics, "regent_data_dir_full")).isZero();
    }
  }

  private static double gauge(RegentMetrics metrics, String name) {
    Matcher m = Pattern.compile("(?m)^" + name + "\\{.* (\\S+)$").matcher(metrics.scrape());
    assertThat(m.find()).as(name + " in the scrape").isTrue();
    return Double.parseDouble(m.group(1));
  }

  /** The first lines of {@code node}'s ERROR log lines, without their stack traces. */
  private static List<String> errors(NodeProcess node) {
    return node.lines().stream().filter(l -> l.contains(" ERROR ")).limit(5)
        .map(l -> l.length() > 400 ? l.substring(0, 400) + "..." : l).toList();
  }

  private static int healthz(int port) {
    try {
      return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
          + "/healthz")).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (Exception e) {
      return -1;
    }
  }

  private RegentClient connect(String... endpoints) {
    RegentClient c = RegentClient.connect(List.of(endpoints));
    clients.add(c);
    return c;
  }
}
