package io.regent.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.regent.client.GroupClient;
import io.regent.client.PartitionOwnership;
import io.regent.client.RegentClient;
import io.regent.testing.LocalRegentCluster;
import io.regent.testing.RegentClusterExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two ownership-group workers against the module's 3-node cluster: the partitions are split between them, each
 * acts on its own with their tokens, and when one leaves the other takes its partitions with larger tokens.
 */
@Tag("cluster")
@Timeout(120)
@ExtendWith(RegentClusterExtension.class)
class GroupWorkerTest {
  private static final int PARTITIONS = 4;
  private static final Duration MOVE = Duration.ofSeconds(30);

  @Test
  void partitionsAreSplitBetweenTheWorkersAndComeBackWhenOneLeaves(LocalRegentCluster cluster) {
    String group = RegentClusterExtension.name("orders");
    ByteArrayOutputStream aOut = new ByteArrayOutputStream();
    GroupWorker a = new GroupWorker(new PrintStream(aOut, true, StandardCharsets.UTF_8));
    GroupWorker b = new GroupWorker(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    try (RegentClient clientA = RegentClient.connect(cluster.endpoints());
         RegentClient clientB = RegentClient.connect(cluster.endpoints());
         PartitionOwnership ownsA = GroupWorker.join(clientA, group, "worker-a", PARTITIONS, a)) {
      await().atMost(MOVE).until(() -> a.partitions().size() == PARTITIONS);
      Map<Integer, Long> alone = a.partitions();
      assertThat(aOut.toString(StandardCharsets.UTF_8))
          .contains("assigned 0 token=" + alone.get(0), "assigned 3 token=" + alone.get(3));

      Map<Integer, Long> bHeld;
      try (PartitionOwnership ownsB = GroupWorker.join(clientB, group, "worker-b", PARTITIONS, b)) {
        await().atMost(MOVE).until(() -> a.partitions().size() == 2 && b.partitions().size() == 2);
        Set<Integer> all = new HashSet<>(a.partitions().keySet());
        all.addAll(b.partitions().keySet());
        assertThat(all).as("every partition owned by exactly one worker").hasSize(PARTITIONS);
        bHeld = b.partitions();
        assertThat(ownsB.owned()).isEqualTo(bHeld);
        bHeld.forEach((p, token) -> assertThat(token).as("partition %d moved to b", p).isGreaterThan(alone.get(p)));
      }
      // b left (closing leaves the group): its partitions come back to a at once, with larger tokens again
      await().atMost(MOVE).until(() -> a.partitions().size() == PARTITIONS);
      bHeld.forEach((p, token) -> assertThat(a.partitions().get(p)).as("partition %d back at a", p)
          .isGreaterThan(token));
      assertThat(ownsA.owned()).isEqualTo(a.partitions());
    }
  }

  @Test
  void aWorkerRunsItsStepsOnItsWholeShareThenLeavesTheGroup(LocalRegentCluster cluster) throws Exception {
    String group = RegentClusterExtension.name("reports");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (RegentClient client = RegentClient.connect(cluster.endpoints())) {
      int exit = new GroupWorker(new PrintStream(out, true, StandardCharsets.UTF_8))
          .run(client, group, "worker-c", 2, 1, 3, new CountDownLatch(1));
      String printed = out.toString(StandardCharsets.UTF_8);
      assertThat(exit).as(printed).isZero();
      assertThat(printed).containsPattern("(?m)^joined " + group + " as worker-c lease=\\d+$")
          .containsPattern("(?m)^step 1 owns 0=\\d+,1=\\d+$").containsPattern("(?m)^step 3 owns ")
          .containsPattern("(?m)^left " + group + " at=\\d+$").doesNotContain("step 4");
      // its last member left, the group is gone
      assertThatThrownBy(() -> new GroupClient(client).status(group, false)).hasMessageStartingWith("NOT_FOUND");
    }
  }
}
