package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.regent.server.RegentServer;
import io.regent.server.config.ConfirmRule;
import io.regent.server.config.ServerConfig;
import io.regent.server.ratis.RaftSetup;
import io.regent.statemachine.proto.MemberTiming;
import io.regent.statemachine.replica.ReplicaView;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node publishes its effective Raft timing, and refuses to restart under the leadership lease with a smaller
 * minimum election timeout than it published: until it publishes again, a leader would bound its lease by the
 * larger value (docs/architecture.md §8.1). The rolling change of docs/operations.md lowers it under strict.
 */
@Tag("cluster")
class TimingRestartTest {
  @TempDir
  Path dir;

  private ServerConfig config(long minMs, ConfirmRule rule, String raft) {
    return ServerConfig.builder("t1", dir.resolve("t1")).raftAddress(raft).apiPort(0)
        .electionTimeout(minMs, 1200).confirm(rule).build();
  }

  private static MemberTiming published(RegentServer s) throws Exception {
    ReplicaView replica = (ReplicaView) s.raft().getDivision(RaftSetup.GROUP_ID).getStateMachine();
    return replica.read(txn -> txn.memberTimings().get("t1"));
  }

  private static void awaitPublished(RegentServer s, long minMs) {
    await().atMost(Duration.ofSeconds(20)).until(() -> {
      MemberTiming t = published(s);
      return t != null && t.getMinElectionTimeoutMs() == minMs && t.getPreVote();
    });
  }

  @Test
  void aSmallerTimeoutThanPublishedIsRefusedUnderTheLeaseAndAcceptedUnderStrict() throws Exception {
    String raft = "127.0.0.1:" + FreePorts.next();
    try (RegentServer s = RegentServer.start(config(600, ConfirmRule.LEASE, raft))) {
      awaitPublished(s, 600);
    }
    assertThatThrownBy(() -> RegentServer.start(config(300, ConfirmRule.LEASE, raft)).close())
        .isInstanceOf(ServerConfig.InvalidSettingException.class)
        .hasMessage("minimum election timeout 300 ms is below the 600 ms this node published; lower it with every "
            + "node on --confirm strict first (docs/operations.md, changing the election timeout)");
    try (RegentServer s = RegentServer.start(config(300, ConfirmRule.STRICT, raft))) {
      awaitPublished(s, 300); // published again: a lease node may now start with 300
    }
    try (RegentServer s = RegentServer.start(config(300, ConfirmRule.LEASE, raft))) {
      assertThat(published(s).getMinElectionTimeoutMs()).isEqualTo(300);
    }
    try (RegentServer s = RegentServer.start(config(900, ConfirmRule.LEASE, raft))) {
      awaitPublished(s, 900); // raising it needs nothing: the smaller published value bounds leases meanwhile
    }
  }
}
