package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.LeaseInfo;
import io.regent.client.RegentClient;
import io.regent.client.RegentLock;
import io.regent.server.placement.LeaseIds;
import io.regent.server.placement.Placement;
import io.regent.server.ratis.RaftSetup;
import io.regent.server.storage.CellCountException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three nodes with four cells (docs/architecture.md §14): every node runs every cell's division; names and leases
 * go to their tenant's cell; tokens are indexes of the name's cell; a cell's stopped division leaves the node
 * serving the other cells.
 */
class CellsClusterTest {
  private static final int CELLS = 4;
  private static final Placement PLACEMENT = new Placement(CELLS);
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final ByteString V = ByteString.copyFromUtf8("v");

  @TempDir
  static Path dir;
  private static LocalCluster cluster;
  /** A tenant whose names are in cell c, for each c. */
  private static final String[] TENANTS = new String[CELLS];

  @BeforeAll
  static void start() throws Exception {
    for (int i = 0, found = 0; found < CELLS; i++) {
      String t = "tenant" + i;
      int c = PLACEMENT.cellOfTenant(t);
      if (TENANTS[c] == null) {
        TENANTS[c] = t;
        found++;
      }
    }
    cluster = LocalCluster.start(3, dir, b -> b.cells(CELLS));
    cluster.awaitCellLeaders(CELLS);
  }

  @AfterAll
  static void stop() throws Exception {
    cluster.close();
  }

  private static String name(int cell, String rest) {
    return TENANTS[cell] + "/" + rest;
  }

  @Test
  void everyNodeRunsEveryCellsDivisionAndEachCellElectsALeader() {
    await().atMost(WAIT).untilAsserted(() -> {
      for (int c = 0; c < CELLS; c++) {
        int leaders = 0;
        for (int i = 0; i < 3; i++) {
          var info = cluster.node(i).raft().getDivision(RaftSetup.groupId(c)).getInfo();
          leaders += info.isLeaderReady() ? 1 : 0;
        }
        assertThat(leaders).as("ready leaders of cell %d", c).isEqualTo(1);
      }
    });
    var status = cluster.client().cluster().status();
    assertThat(status.getCellsList()).extracting(s -> s.getCell()).containsExactly(0, 1, 2, 3);
    assertThat(status.getCellsList()).allSatisfy(s -> {
      assertThat(s.getLeader()).isNotEmpty();
      assertThat(s.getAppliedIndex()).isPositive();
    });
    assertThat(status.getCells(0).getTerm()).isEqualTo(status.getTerm());
  }

  @Test
  void namesAndLeasesLiveInTheirTenantsCellWithThatCellsIndexAsToken() throws Exception {
    RegentClient client = cluster.client();
    for (int c = 0; c < CELLS; c++) {
      long lease = client.leases().grant(10_000, TENANTS[c]);
      assertThat(LeaseIds.cellOf(lease)).as("the lease id carries its cell").isEqualTo(c);
      LeaderKey key = client.elections().campaign(name(c, "leader"), lease, V);
      assertThat(key.getLease()).isEqualTo(lease);
      int cell = c;
      await().atMost(WAIT).untilAsserted(() -> assertThat(cluster.node(0).raft().getDivision(RaftSetup.groupId(cell))
          .getInfo().getLastAppliedIndex()).as("a token is an index of the name's cell's log")
          .isGreaterThanOrEqualTo(key.getToken()));
      assertThat(client.elections().leader(name(c, "leader"))).hasValueSatisfying(k ->
          assertThat(k.getToken()).isEqualTo(key.getToken()));
      LeaderKey fresh = client.elections().freshToken(key);
      assertThat(fresh.getToken()).isGreaterThan(key.getToken());
      client.elections().resign(fresh, true);
    }
  }

  @Test
  void aLeaseHoldsNamesOfItsOwnCellOnly() {
    RegentClient client = cluster.client();
    long lease = client.leases().grant(10_000, TENANTS[1]);
    assertThatThrownBy(() -> client.elections().campaign(name(2, "x"), lease, V))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
          assertThat(e.getStatus().getDescription()).contains("cell 1", "cell 2", "tenant '" + TENANTS[2] + "'");
        });
    assertThatThrownBy(() -> client.elections().campaignAll(List.of(name(1, "a"), name(2, "b")), lease, V))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
          assertThat(e.getStatus().getDescription()).contains("cells [1, 2]", "{tag}");
        });
    List<LeaderKey> both = client.elections().campaignAll(List.of(name(1, "a"), "{" + TENANTS[1] + "}/b"), lease, V);
    assertThat(both).extracting(LeaderKey::getToken).containsOnly(both.get(0).getToken());
    client.leases().revoke(lease);
  }

  @Test
  void keepalivesAndTheLeaseListSpanEveryCell() {
    RegentClient client = cluster.client();
    long[] leases = IntStream.range(0, CELLS).mapToLong(c -> client.leases().grant(10_000, TENANTS[c])).toArray();
    for (long lease : leases) {
      assertThat(client.leases().keepAlive(lease, 5_000)).isEqualTo(10_000);
      assertThat(client.leases().timeToLive(lease).getTtlMs()).isEqualTo(10_000);
    }
    assertThat(client.leases().list()).extracting(LeaseInfo::getId).contains(leases[0], leases[1], leases[2],
        leases[3]);
    long unknown = LeaseIds.base(CELLS) + 5;
    assertThatThrownBy(() -> client.leases().keepAlive(unknown, 5_000))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
    for (long lease : leases) {
      client.leases().revoke(lease);
    }
  }

  @Test
  void theJavaClientsLocksGrantTheirLeaseInTheLocksCell() throws Exception {
    for (int c = 0; c < CELLS; c++) {
      String name = name(c, "lock");
      try (RegentLock lock = new RegentLock(cluster.client(), name, "me", 5_000)) {
        lock.lock();
        assertThat(lock.isHeld()).isTrue();
        assertThat(cluster.client().elections().leader(name)).hasValueSatisfying(k ->
            assertThat(LeaseIds.cellOf(k.getLease())).isEqualTo(PLACEMENT.cellOf(name)));
        lock.unlock();
      }
    }
  }

  @Test
  void membershipChangesAndSnapshotsAreRefusedAndChangeNothing() {
    RegentClient client = cluster.client();
    int before = client.cluster().memberList().getMembersCount();
    assertThatThrownBy(() -> client.cluster().memberAdd("n9", "127.0.0.1:1", "127.0.0.1:2"))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
          assertThat(e.getStatus().getDescription()).contains("several cells");
        });
    assertThatThrownBy(() -> client.cluster().memberRemove(LocalCluster.id(1)))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION));
    assertThat(client.cluster().memberList().getMembersCount()).isEqualTo(before);
    var channel = io.grpc.ManagedChannelBuilder.forTarget(cluster.endpoint(0)).usePlaintext().build();
    try {
      assertThatThrownBy(() -> io.regent.api.v1.MaintenanceGrpc.newBlockingStub(channel)
          .snapshot(io.regent.api.v1.SnapshotRequest.getDefaultInstance()).hasNext())
          .as("a snapshot of cell 0 alone would be a backup without the other cells")
          .isInstanceOfSatisfying(StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION));
    } finally {
      channel.shutdownNow();
    }
    assertThatThrownBy(() -> io.regent.server.RegentServer.startMember(io.regent.server.config.ServerConfig
        .builder("n9", dir.resolve("n9")).raftAddress("127.0.0.1:1").apiPort(0).cells(CELLS).build()))
        .isInstanceOf(io.regent.server.config.ServerConfig.InvalidSettingException.class)
        .hasMessageContaining("--peers");
  }

  @Test
  void aNodeRestartsWithItsCellsAndRefusesAnotherNumber() throws Exception {
    cluster.stopNode(2);
    Path data = dir.resolve(LocalCluster.id(2));
    assertThatThrownBy(() -> io.regent.server.RegentServer.start(io.regent.server.config.ServerConfig
        .builder(LocalCluster.id(2), data).peers(java.util.Map.of(LocalCluster.id(2), "127.0.0.1:1")).apiPort(0)
        .cells(2).build()))
        .isInstanceOf(CellCountException.class).hasMessageContaining("created with 4 cell(s), not 2");
    cluster.startNode(2);
    await().atMost(WAIT).untilAsserted(() -> {
      for (int c = 0; c < CELLS; c++) {
        assertThat(cluster.node(2).raft().getDivision(RaftSetup.groupId(c)).getInfo().isAlive()).isTrue();
      }
    });
  }
}
