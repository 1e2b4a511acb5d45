package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.regent.api.v1.LeaderKey;
import io.regent.client.RegentClient;
import io.regent.server.placement.Placement;
import io.regent.server.ratis.RaftSetup;
import io.regent.statemachine.ratis.RegentStateMachine;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An apply fault in one cell stays in that cell (docs/architecture.md §14): every replica of cell 2 is made to refuse
 * the entries it is sent (the entry-version failpoint of the rolling-upgrade test, set on that cell's state machine
 * alone), so the first entry the cell commits makes its apply throw on the nodes that apply it, and Ratis closes
 * their divisions: the cell has lost its quorum.
 * The other cells go on granting, renewing and electing; their leases, kept alive throughout, lose no name; and no
 * node reports itself stopped.
 */
@Tag("cluster")
class CellFaultContainmentTest {
  private static final int CELLS = 4;
  private static final int POISONED = 2;
  private static final List<Integer> HEALTHY = List.of(0, 1, 3);
  private static final long TTL_MS = 3_000;
  private static final ByteString V = ByteString.copyFromUtf8("v");

  @RegisterExtension
  final ClusterFixture clusters = ClusterFixture.perTest();

  private static String tenantOf(int cell) {
    Placement p = new Placement(CELLS);
    for (int i = 0; ; i++) {
      if (p.cellOfTenant("t" + i) == cell) {
        return "t" + i;
      }
    }
  }

  private static long stoppedDivisions(LocalCluster cluster) {
    return IntStream.range(0, 3).filter(i -> {
      try {
        return !cluster.node(i).raft().getDivision(RaftSetup.groupId(POISONED)).getInfo().isAlive();
      } catch (java.io.IOException e) {
        return true;
      }
    }).count();
  }

  @Test
  void anApplyFaultInOneCellLeavesTheOtherCellsGrantingRenewingAndElecting() throws Exception {
    LocalCluster cluster = clusters.start(3, c -> c.cells(CELLS).metricsPort(0));
    cluster.awaitCellLeaders(CELLS);
    RegentClient client = cluster.client();
    Map<String, String> stopped = new ConcurrentHashMap<>();
    for (int i = 0; i < 3; i++) {
      String id = LocalCluster.id(i);
      cluster.node(i).onDivisionStopped(reason -> stopped.put(id, reason));
    }
    // a held name in each healthy cell, its lease renewed every TTL / 6 for the whole test
    Map<Integer, LeaderKey> held = new ConcurrentHashMap<>();
    for (int c : HEALTHY) {
      long lease = client.leases().grant(TTL_MS, tenantOf(c));
      held.put(c, client.elections().campaign(tenantOf(c) + "/held", lease, V));
    }
    AtomicInteger lostRenewals = new AtomicInteger();
    ScheduledExecutorService keepalives = Executors.newSingleThreadScheduledExecutor();
    try {
      keepalives.scheduleWithFixedDelay(() -> held.values().forEach(k -> {
        try {
          client.leases().keepAlive(k.getLease(), TTL_MS);
        } catch (RuntimeException e) {
          lostRenewals.incrementAndGet();
        }
      }), 0, TTL_MS / 6, TimeUnit.MILLISECONDS);

      for (int i = 0; i < 3; i++) {
        ((RegentStateMachine) cluster.node(i).raft().getDivision(RaftSetup.groupId(POISONED)).getStateMachine())
            .setMaxEntryVersion(0); // every entry refused: a cell writes version 1 until its voters' formats are known
      }
      // Any entry of the cell is poison: every replica that applies it stops, and once two have, the third never
      // learns it committed. A grant that failed before it was proposed (a busy machine) poisons nothing: send
      // another until the cell has stopped.
      AtomicInteger poisonAnswered = new AtomicInteger();
      AtomicReference<CompletableFuture<?>> poison = new AtomicReference<>(CompletableFuture.completedFuture(null));
      await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
        if (poison.get().isDone() && stoppedDivisions(cluster) < 2) {
          poison.set(CompletableFuture.runAsync(() -> {
            client.leases().grant(TTL_MS, tenantOf(POISONED));
            poisonAnswered.incrementAndGet();
          }));
        }
        assertThat(stoppedDivisions(cluster)).as("cell %d's stopped divisions", POISONED).isGreaterThanOrEqualTo(2);
      });

      for (int c : HEALTHY) {
        long lease = client.leases().grant(TTL_MS, tenantOf(c));
        LeaderKey fresh = client.elections().campaign(tenantOf(c) + "/after", lease, V);
        assertThat(client.elections().freshToken(fresh).getToken()).isGreaterThan(fresh.getToken());
        client.leases().revoke(lease);
      }
      // two TTLs more: the held names keep their holders, none renewed in vain
      await().during(Duration.ofMillis(2 * TTL_MS)).atMost(Duration.ofMillis(3 * TTL_MS)).untilAsserted(() -> {
        for (int c : HEALTHY) {
          assertThat(client.elections().leader(tenantOf(c) + "/held")).as("cell %d's held name", c)
              .contains(held.get(c));
        }
      });
      assertThat(lostRenewals).as("keepalives refused in the healthy cells").hasValue(0);
      assertThat(client.cluster().status().getCellsList()).extracting(s -> s.getRole())
          .as("each cell's role on the answering node").hasSize(CELLS).doesNotContainNull()
          .satisfies(roles -> assertThat(roles.get(POISONED)).isIn("STOPPED", "CANDIDATE", "FOLLOWER"))
          .satisfies(roles -> HEALTHY.forEach(c -> assertThat(roles.get(c)).isIn("LEADER", "FOLLOWER")));
      assertThat(stopped).as("nodes that reported themselves stopped").isEmpty();
      // a node whose cell stopped is live and ready, names the stopped cell, and reports it per cell
      for (int i = 0; i < 3; i++) {
        if (cluster.node(i).raft().getDivision(RaftSetup.groupId(POISONED)).getInfo().isAlive()) {
          continue;
        }
        int port = cluster.node(i).metricsPort();
        String node = LocalCluster.id(i);
        assertThat(get(port, "/healthz")).as("%s's /healthz", node).isEqualTo("200 ok");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(get(port, "/readyz"))
            .as("%s's /readyz", node).startsWith("200 ready; cell " + POISONED + " stopped: "));
        assertThat(get(port, "/metrics")).containsPattern("(?m)^regent_cell_stopped\\{cell=\"" + POISONED
            + "\",[^}]*} 1\\.0$").containsPattern("(?m)^regent_cell_stopped\\{cell=\"0\",[^}]*} 0\\.0$")
            .containsPattern("(?m)^regent_raft_is_leader\\{cell=\"3\",[^}]*} [01]\\.0$");
      }
      assertThat(poisonAnswered).as("poisoned grants answered as applied").hasValue(0);
    } finally {
      keepalives.shutdownNow();
    }
  }

  /** {@code CODE BODY} of GET {@code path} on the node's metrics port (the body's last newline dropped). */
  private static String get(int port, String path) throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + port + path)).build(), HttpResponse.BodyHandlers.ofString());
    return r.statusCode() + " " + r.body().stripTrailing();
  }
}
