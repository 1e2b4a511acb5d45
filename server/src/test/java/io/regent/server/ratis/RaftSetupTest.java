package io.regent.server.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.regent.server.config.ConfirmRule;

import io.regent.server.config.ServerConfig;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RaftSetupTest {
  @Test
  void raftKeysFromTheJvmOverrideRegentsSettingsAndNothingElseIsTouched(@TempDir Path dir) {
    RaftProperties p = RaftSetup.properties(ServerConfig.of("n1", Map.of("n1", "127.0.0.1:7001"), 0, dir));
    assertThat(RaftServerConfigKeys.Log.logMetadataEnabled(p)).isFalse();
    Properties jvm = new Properties();
    jvm.setProperty("raft.server.log.log-metadata.enabled", "true");
    jvm.setProperty("raft.server.log.appender.wait-time.min", "1ms");
    jvm.setProperty("java.version", "ignored");
    RaftSetup.overrides(p, jvm);
    assertThat(RaftServerConfigKeys.Log.logMetadataEnabled(p)).isTrue();
    assertThat(RaftServerConfigKeys.Log.Appender.waitTimeMin(p).toLong(TimeUnit.MILLISECONDS))
        .isEqualTo(1);
    assertThat(p.get("java.version")).isNull();
  }

  @Test
  void theAppenderPausesAtMost50msPerFailedRoundForTenMinutesNotRatisFiveSeconds(@TempDir Path dir) {
    RaftProperties p = RaftSetup.properties(ServerConfig.of("n1", Map.of("n1", "127.0.0.1:7001"), 0, dir));
    RetryPolicy policy = RetryPolicy.parse(RaftServerConfigKeys.Log.Appender.retryPolicy(p),
        RaftServerConfigKeys.Log.Appender.RETRY_POLICY_KEY);
    for (int errors : new int[] {1, 10, 31, 1000, 12_010}) {
      // the random pause is drawn around the configured one: at most 1.5 times it
      assertThat(policy.handleAttemptFailure(() -> errors).getSleepTime().toLong(TimeUnit.MILLISECONDS))
          .as("pause after %d failed rounds", errors).isLessThanOrEqualTo(75);
    }
    assertThat(policy.handleAttemptFailure(() -> 12_011).getSleepTime().toLong(TimeUnit.MILLISECONDS))
        .as("a follower dead for ten minutes").isBetween(500L, 1500L);
  }

  @Test
  void theLeaseRuleRefusesAJvmPropertyThatTurnsThePreVoteOff(@TempDir Path dir) {
    ServerConfig lease = ServerConfig.of("n1", Map.of("n1", "127.0.0.1:7001"), 0, dir);
    withJvmProperty("raft.server.leaderelection.pre-vote", "false", () -> {
      assertThatThrownBy(() -> RaftSetup.properties(lease))
          .isInstanceOf(ServerConfig.InvalidSettingException.class)
          .hasMessageContaining("--confirm lease needs Ratis's pre-vote");
      RaftProperties strict = RaftSetup.properties(lease.toBuilder().confirm(ConfirmRule.STRICT).build());
      assertThat(RaftServerConfigKeys.LeaderElection.preVote(strict)).as("strict runs without it").isFalse();
    });
  }

  @Test
  void anElectionTimeoutOverrideThatDisagreesWithTheFlagIsRefused(@TempDir Path dir) {
    ServerConfig config = ServerConfig.of("n1", Map.of("n1", "127.0.0.1:7001"), 0, dir);
    withJvmProperty("raft.server.rpc.timeout.min", "300ms", () -> assertThatThrownBy(() -> RaftSetup.properties(config))
        .isInstanceOf(ServerConfig.InvalidSettingException.class)
        .hasMessageContaining("election timeouts 300..900 ms, --election-timeout 600..900 ms"));
    withJvmProperty("raft.server.rpc.timeout.min", "600ms", () -> assertThat(
        RaftServerConfigKeys.Rpc.timeoutMin(RaftSetup.properties(config)).toLong(TimeUnit.MILLISECONDS))
        .as("an override that agrees is harmless").isEqualTo(600));
  }

  @Test
  void theLeaseRuleRefusesAFirstElectionTimeoutBelowTheMinimum(@TempDir Path dir) {
    ServerConfig lease = ServerConfig.of("n1", Map.of("n1", "127.0.0.1:7001"), 0, dir);
    withJvmProperty("raft.server.rpc.first-election.timeout.min", "100ms", () -> {
      assertThatThrownBy(() -> RaftSetup.properties(lease))
          .isInstanceOf(ServerConfig.InvalidSettingException.class)
          .hasMessage("--confirm lease needs raft.server.rpc.first-election.timeout.min of at least the minimum "
              + "election timeout 600 ms, not 100 ms: drop that property or use --confirm strict");
      RaftProperties strict = RaftSetup.properties(lease.toBuilder().confirm(ConfirmRule.STRICT).build());
      assertThat(RaftServerConfigKeys.Rpc.firstElectionTimeoutMin(strict).toLong(TimeUnit.MILLISECONDS))
          .as("strict runs with it").isEqualTo(100);
    });
    withJvmProperty("raft.server.rpc.first-election.timeout.min", "600ms", () -> assertThat(
        RaftServerConfigKeys.Rpc.firstElectionTimeoutMin(RaftSetup.properties(lease)).toLong(TimeUnit.MILLISECONDS))
        .as("the minimum itself is accepted").isEqualTo(600));
    assertThat(RaftServerConfigKeys.Rpc.firstElectionTimeoutMin(RaftSetup.properties(lease))
        .toLong(TimeUnit.MILLISECONDS)).as("unset: Ratis falls back to the minimum").isEqualTo(600);
  }

  private static void withJvmProperty(String key, String value, Runnable body) {
    System.setProperty(key, value);
    try {
      body.run();
    } finally {
      System.clearProperty(key);
    }
  }
}
