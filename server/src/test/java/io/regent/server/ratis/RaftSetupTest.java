package io.regent.server.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.server.config.ServerConfig;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
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
}
