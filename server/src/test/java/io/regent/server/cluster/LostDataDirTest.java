package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.regent.client.RegentClient;
import io.regent.server.Joiner;
import io.regent.server.RegentServer;
import io.regent.server.ratis.RaftSetup;
import io.regent.server.storage.DataDir;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A first voter ({@code --peers}) that starts with no Raft state is new, or lost its data: its peers tell
 * which (docs/operations.md, "Replace a dead node"). The replacement procedure itself (remove, then join on an
 * empty data directory) is {@code MembershipChangeTest.replaceANodeWhoseDataDirWasDeleted}.
 */
@Tag("cluster")
class LostDataDirTest {
  @TempDir
  Path dir;

  @Test
  void aVoterRestartedOnAWipedDataDirRefusesToStartAndNamesTheReplaceProcedure() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(3, dir)) {
      int leader = cluster.awaitLeader();
      int wiped = (leader + 1) % 3;
      String id = LocalCluster.id(wiped);
      RegentClient client = cluster.clientOf(leader);
      long lease = client.leases().grant(600_000);
      var division = cluster.node(leader).raft().getDivision(RaftSetup.GROUP_ID);
      // the leader has heard the follower commit (what the check asks it)
      await().atMost(Duration.ofSeconds(30)).until(() -> division.getCommitInfos().stream()
          .anyMatch(c -> c.getServer().getId().toStringUtf8().equals(id) && c.getCommitIndex() >= lease));
      cluster.stopNode(wiped);
      deleteTree(dir.resolve(id));

      // before: it started, and sat at applied index -1 while the leader logged INCONSISTENCY, nextIndex 0
      for (int attempt = 0; attempt < 2; attempt++) { // a refused start writes nothing: the next is refused too
        assertThatThrownBy(() -> cluster.startNode(wiped)).isInstanceOf(IOException.class)
            .hasMessageContaining("regent member remove " + id).hasMessageContaining("docs/operations.md")
            .hasMessageNotContaining("\n");
        assertThat(new DataDir(dir.resolve(id)).raftGroup()).doesNotExist();
      }
      assertThat(client.leases().list()).extracting(l -> l.getId()).contains(lease);
    }
  }

  @Test
  void aJoinedMemberRestartedOnAWipedDataDirWithJoinIsRefused() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(3, dir.resolve("cluster"));
         NewMembers extra = new NewMembers(dir.resolve("new"), UnaryOperator.identity())) {
      RegentClient client = cluster.clientOf(cluster.awaitLeader());
      extra.join("n9", client);
      extra.stop("n9");
      deleteTree(dir.resolve("new").resolve("n9"));

      RegentServer again = extra.restart("n9"); // same id and Raft address, empty data directory
      // before: the joiner found a voter of that id and address and returned, the node at applied index -1
      assertThatThrownBy(() -> Joiner.join(again, client, extra.endpoint("n9"), 30_000))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("regent member remove n9")
          .hasMessageContaining("docs/operations.md");
    }
  }

  @Test
  void aFirstVoterThatNeverRanStartsLateOnAnEmptyDataDirAndCatchesUp() throws Exception {
    try (LocalCluster cluster = LocalCluster.unstarted(3, dir)) {
      cluster.startNode(0);
      cluster.startNode(1);
      int leader = cluster.awaitLeader();
      long lease = cluster.clientOf(leader).leases().grant(600_000);

      cluster.startNode(2);

      var late = cluster.node(2).raft().getDivision(RaftSetup.GROUP_ID);
      await().atMost(Duration.ofSeconds(30)).until(() -> late.getInfo().getLastAppliedIndex() >= lease);
    }
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
