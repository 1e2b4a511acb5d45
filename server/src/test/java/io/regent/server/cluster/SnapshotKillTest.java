package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.regent.api.v1.LeaderKey;
import io.regent.client.RegentClient;
import io.regent.server.RegentServer;
import io.regent.server.config.ServerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -9} of a real node process while it writes a snapshot: the restarted node starts, rejoins, and
 * every acknowledged holder and token is still there; new tokens are above all of them.
 *
 * <p>The kill lands in the write every time: the node snapshots every {@link #THRESHOLD} entries while a writer
 * keeps the log moving, and its first snapshot write is held open by {@link
 * io.regent.statemachine.ratis.SnapshotFailpoint} between the snapshot file and its {@code .md5}; the node says
 * so and the test kills it there. (Polling the directory for a write in progress, as this test did, missed a
 * write of a few milliseconds for 30 s on a loaded machine.) {@link SnapshotLeftoversTest} makes the other
 * leftovers (a temporary {@code lmdb-copy*}) in a data directory.
 */
@Tag("cluster")
class SnapshotKillTest {
  static final long THRESHOLD = 40;
  static final long NEVER = Long.MAX_VALUE / 2;
  static final int NAMES_BEFORE = 150;

  @TempDir
  Path dir;
  final List<RegentServer> servers = new ArrayList<>();
  final List<RegentClient> clients = new ArrayList<>();
  NodeProcess victim;

  @AfterEach
  void stop() throws Exception {
    clients.forEach(RegentClient::close);
    if (victim != null) {
      victim.close();
    }
    for (RegentServer s : servers) {
      s.close();
    }
  }

  @Test
  void aNodeKilledWhileWritingASnapshotRestartsWithEveryToken() throws Exception {
    Map<String, String> peers = new LinkedHashMap<>();
    int[] api = new int[3];
    for (int i = 0; i < 3; i++) {
      peers.put(LocalCluster.id(i), "127.0.0.1:" + FreePorts.next());
      api[i] = FreePorts.next();
    }
    for (int i = 0; i < 2; i++) { // two in this JVM: a quorum that keeps writing while the third is dead
      // They never snapshot, so never purge their log: a leader that purged up to its snapshot every THRESHOLD
      // entries sent the slower victim one install after another (a clean-clone CI run), and a node that only
      // installs snapshots never applies THRESHOLD entries of its own, so never writes the snapshot held open.
      servers.add(RegentServer.start(ServerConfig.builder(LocalCluster.id(i), dir.resolve(LocalCluster.id(i)))
          .peers(peers).apiPort(api[i]).snapshots(NEVER, 8L << 20).build()));
    }
    RegentClient client = connect("127.0.0.1:" + api[0], "127.0.0.1:" + api[1]);
    await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(
        () -> !client.cluster().status().getLeader().isEmpty());
    Path victimDir = dir.resolve("n2");
    victim = NodeProcess.start("n2", peers, api[2], victimDir, THRESHOLD, true);

    Map<String, LeaderKey> acked = new ConcurrentHashMap<>();
    // Small values: the failpoint, not the size of the state, makes the kill land in the write. A state of 9 MB
    // (60 KiB values) made the restarted victim, which replays its log and snapshots every THRESHOLD entries,
    // miss catching up within 60 s in a clean-clone CI run.
    byte[] value = new byte[1024];
    for (int i = 0; i < NAMES_BEFORE; i++) {
      acked.put("before-" + i, client.elections().campaign("before-" + i, client.leases().grant(600_000),
          ByteString.copyFrom(value)));
    }

    AtomicBoolean writing = new AtomicBoolean(true);
    Thread writer = new Thread(() -> {
      for (int i = 0; writing.get() && i < 100_000; i++) {
        try {
          String name = "w-" + i;
          acked.put(name, client.elections().campaign(name, client.leases().grant(600_000),
              ByteString.copyFromUtf8(name)));
        } catch (RuntimeException e) {
          // not acknowledged (an election after a kill): nothing to check for this name
        }
      }
    }, "writer");
    writer.start();
    try {
      // the victim was started holding its first snapshot write open
      try {
        await("n2 holding a snapshot write open").atMost(Duration.ofSeconds(120))
            .until(() -> victim.heldSnapshot() != null);
      } catch (ConditionTimeoutException e) {
        System.out.println("n2 wrote no snapshot; its threads:\n" + victim.threadDump());
        throw e;
      }
      assertThat(SnapshotFiles.writing(victimDir)).as("a snapshot file without its .md5: " + SnapshotFiles.names(
          victimDir)).isTrue();
      victim.kill9();
      System.out.println("kill -9 during the write of " + victim.heldSnapshot() + "; left: "
          + SnapshotFiles.names(victimDir));
      victim = NodeProcess.start("n2", peers, api[2], victimDir, THRESHOLD);
      assertThat(victim.lines()).anyMatch(l -> l.contains("left by an interrupted snapshot"));
      assertThat(SnapshotFiles.writing(victimDir)).isFalse();
    } finally {
      writing.set(false);
      writer.join();
    }

    // n2's own state, read locally (serializable): it must hold every acknowledged holder and token
    ReplicaCheck.holdsEveryAcknowledged(api[2], client.cluster().status().getCommitIndex(), acked,
        () -> "its threads:\n" + victim.threadDump());
    RegentClient viaVictim = connect("127.0.0.1:" + api[2]);
    long maxToken = acked.values().stream().mapToLong(LeaderKey::getToken).max().orElseThrow();
    assertThat(viaVictim.elections().campaign("after", viaVictim.leases().grant(600_000), ByteString.EMPTY).getToken())
        .isGreaterThan(maxToken);
  }

  private RegentClient connect(String... endpoints) {
    RegentClient c = RegentClient.connect(List.of(endpoints));
    clients.add(c);
    return c;
  }

}
