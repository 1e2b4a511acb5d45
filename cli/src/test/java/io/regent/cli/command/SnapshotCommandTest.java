package io.regent.cli.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.LeaseInfo;
import io.regent.cli.Regent;
import io.regent.cli.cluster.ProcessCluster;
import io.regent.client.RegentClient;
import io.regent.server.RegentServer;
import io.regent.server.config.ServerConfig;
import io.regent.server.ratis.RaftSetup;
import io.regent.server.storage.SnapshotFile;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.RandomAccessFile;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code regent snapshot save} from a running node, {@code restore} into the three data directories of a new
 * cluster: same leases and holders, and new tokens above every token in the snapshot. Damaged files fail
 * with one line.
 */
@Tag("cluster")
public class SnapshotCommandTest {
  @TempDir
  Path dir;

  @Test
  void saveRestoreAndTokensContinueUpward() throws Exception {
    Path file = dir.resolve("backup.snap");
    List<LeaseInfo> leases;
    long maxToken = 0;
    LeaderKey last;
    int sourcePort = freePort();
    ServerConfig source = ServerConfig.builder("s1", dir.resolve("source")).raftAddress("127.0.0.1:" + freePort())
        .apiPort(sourcePort).snapshots(25, 8 * 1024).build();
    try (RegentServer s = RegentServer.start(source);
         RegentClient c = RegentClient.connect("127.0.0.1:" + sourcePort)) {
      for (int i = 0; i < 30; i++) {
        long lease = c.leases().grant(600_000);
        maxToken = Math.max(maxToken, c.elections().campaign("name-" + i, lease,
            ByteString.copyFromUtf8("v" + i)).getToken());
      }
      leases = c.leases().list();
      last = c.elections().leader("name-29").orElseThrow();
      Run save = run("snapshot", "save", file.toString(), "--endpoints", "127.0.0.1:" + sourcePort);
      assertThat(save.code).as(save.err).isZero();
      assertThat(save.out).startsWith("snapshot " + file + " index=").contains("sha256=");
    }
    long index = SnapshotFile.check(file, null).appliedIndex();
    assertThat(index).isGreaterThanOrEqualTo(maxToken);
    // The stopped node's data directory gives the same state, offline.
    Path offline = dir.resolve("offline.snap");
    Run off = run("snapshot", "save", offline.toString(), "--data-dir", dir.resolve("source").toString());
    assertThat(off.code).as(off.err).isZero();
    assertThat(SnapshotFile.check(offline, null).appliedIndex()).isGreaterThanOrEqualTo(index);

    // A new 3-node cluster, every node restored from the same file.
    Map<String, String> peers = new LinkedHashMap<>();
    int[] apiPorts = new int[3];
    for (int i = 0; i < 3; i++) {
      peers.put("n" + i, "127.0.0.1:" + freePort());
      apiPorts[i] = freePort();
      Run restore = run("snapshot", "restore", file.toString(), "--data-dir", dir.resolve("n" + i).toString());
      assertThat(restore.code).as(restore.err).isZero();
      assertThat(restore.out).isEqualTo("restored " + file + " index=" + index + " into " + dir.resolve("n" + i));
    }
    List<RegentServer> nodes = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        nodes.add(RegentServer.start(ServerConfig.of("n" + i, peers, apiPorts[i], dir.resolve("n" + i))));
      }
      try (RegentClient c = RegentClient.connect(List.of("127.0.0.1:" + apiPorts[0], "127.0.0.1:" + apiPorts[1],
          "127.0.0.1:" + apiPorts[2]))) {
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(
            () -> !c.cluster().status().getLeader().isEmpty());
        assertThat(c.leases().list()).isEqualTo(leases);
        assertThat(c.elections().leader("name-29")).contains(last);
        long lease = c.leases().grant(600_000);
        assertThat(lease).isGreaterThan(index);
        long token = c.elections().campaign("after-restore", lease, ByteString.EMPTY).getToken();
        assertThat(token).isGreaterThan(maxToken).isGreaterThan(index);
        // A name held in the snapshot passes on with a token above it too.
        c.leases().revoke(last.getLease());
        long waiting = c.leases().grant(600_000);
        assertThat(c.elections().campaign("name-29", waiting, ByteString.EMPTY).getToken()).isGreaterThan(index);
        // Each node applied past the snapshot: the Raft log continued at index + 1.
        for (RegentServer n : nodes) {
          long applied = n.raft().getDivision(RaftSetup.GROUP_ID).getInfo().getLastAppliedIndex();
          assertThat(applied).isGreaterThan(index);
        }
      }
    } finally {
      for (RegentServer n : nodes) {
        n.close();
      }
    }
  }

  @Test
  void damagedFilesFailWithOneLine() throws Exception {
    Path lmdb = dir.resolve("env");
    try (var store = io.regent.statemachine.store.RegentStore.open(lmdb)) {
      store.write(t -> {
        t.setAppliedIndex(42);
        return null;
      });
      store.copyTo(dir.resolve("copy.mdb"));
    }
    Path good = dir.resolve("good.snap");
    SnapshotFile.write(good, 42, dir.resolve("copy.mdb"));
    assertThat(SnapshotFile.check(good, null).appliedIndex()).isEqualTo(42);

    Path corrupt = dir.resolve("corrupt.snap");
    Files.copy(good, corrupt);
    try (RandomAccessFile f = new RandomAccessFile(corrupt.toFile(), "rw")) {
      f.seek(100);
      int b = f.read();
      f.seek(100);
      f.write(b ^ 0xff);
    }
    Run r = run("snapshot", "restore", corrupt.toString(), "--data-dir", dir.resolve("a").toString());
    assertThat(r.code).isEqualTo(1);
    assertThat(r.err).startsWith("error: snapshot " + corrupt + " is corrupt: SHA-256").doesNotContain("\n");
    assertThat(dir.resolve("a/lmdb/data.mdb")).doesNotExist();

    Path truncated = dir.resolve("truncated.snap");
    Files.write(truncated, java.util.Arrays.copyOf(Files.readAllBytes(good), (int) Files.size(good) - 10));
    r = run("snapshot", "restore", truncated.toString(), "--data-dir", dir.resolve("b").toString());
    assertThat(r.code).isEqualTo(1);
    assertThat(r.err).startsWith("error: snapshot " + truncated + " is truncated").doesNotContain("\n");

    Path junk = dir.resolve("junk.snap");
    Files.writeString(junk, "hello, this is not a snapshot at all");
    r = run("snapshot", "restore", junk.toString(), "--data-dir", dir.resolve("c").toString());
    assertThat(r.err).isEqualTo("error: snapshot " + junk + " is not a Regent snapshot (bad magic)");

    assertThat(run("snapshot", "restore", good.toString(), "--data-dir", dir.resolve("d").toString()).code).isZero();
    r = run("snapshot", "restore", good.toString(), "--data-dir", dir.resolve("d").toString());
    assertThat(r.code).isEqualTo(1);
    assertThat(r.err).contains("already exists");
  }

  /** What {@link #run} saw: the exit code and the stripped stdout and stderr. */
  public record Run(int code, String out, String err) {
  }

  /** Runs {@code regent ARGS...} in this JVM (other tests use it too) and returns its exit code and output. */
  public static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Regent.commandLine().setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true))
        .execute(args);
    return new Run(code, out.toString().strip(), err.toString().strip());
  }

  /**
   * Next port in 20000–26999 that is free: below the ephemeral range (see server tests' FreePorts for why) and
   * below the blocks {@link io.regent.cli.cluster.PortBlock} reserves for process clusters, which another test JVM
   * may be starting at the same moment.
   *
   * @throws IOException if none is
   */
  public static int freePort() throws IOException {
    for (int tries = 0; tries < PORT_SPAN; tries++) {
      int port = 20_000 + Math.floorMod(NEXT_PORT.getAndIncrement(), PORT_SPAN);
      if (ProcessCluster.portFree(port)) {
        return port;
      }
    }
    throw new IOException("no free port in 20000..26999");
  }

  private static final int PORT_SPAN = 7_000;
  private static final AtomicInteger NEXT_PORT =
      new AtomicInteger((int) (ProcessHandle.current().pid() * 7919 % PORT_SPAN));
}
