package io.regent.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.regent.statemachine.apply.EntryCodec;
import io.regent.server.config.ServerConfig.InvalidSettingException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The builder parses settings as the command line writes them and names the setting it refuses. */
class ServerConfigTest {
  private static final Path DIR = Path.of("/data/n1");

  @Test
  void peersKeepTheirOrderAndDefaultsMatchTheDocumentedOnes() {
    ServerConfig c = ServerConfig.builder("n2", DIR).peers("n1=h1:7001, n2=h2:7002,n3=h3:7003").build();
    assertThat(c.peers()).containsExactly(Map.entry("n1", "h1:7001"), Map.entry("n2", "h2:7002"),
        Map.entry("n3", "h3:7003"));
    assertThat(c.electionTimeoutMinMs()).isEqualTo(600);
    assertThat(c.electionTimeoutMaxMs()).isEqualTo(900);
    assertThat(c.minTtlMs()).isEqualTo(1350);
    assertThat(c.apiPort()).isEqualTo(7101);
    assertThat(c.metricsPort()).isEqualTo(-1);
    assertThat(c.confirm()).isEqualTo(ConfirmRule.LEASE);
    assertThat(c.toBuilder().metricsPort(0).build()).isEqualTo(new ServerConfig(c.nodeId(), c.peers(), c.apiHost(),
        c.apiPort(), c.dataDir(), 600, 900, c.snapshotThreshold(), c.logSegmentBytes(), c.requestTimeoutMs(), false,
        false, false, 0, c.limits(), ConfirmRule.LEASE, ServerConfig.DEFAULT_PROPOSAL_BATCH, true, -1,
        EntryCodec.MAX_VERSION, 1));
    assertThat(c.cells()).as("one cell unless asked").isEqualTo(1);
    assertThat(c.toBuilder().cells(4).build().toBuilder().build().cells()).isEqualTo(4);
    assertThat(c.etcdPort()).as("no etcd port unless asked").isEqualTo(-1);
    assertThat(c.toBuilder().etcdPort(0).build().toBuilder().build().etcdPort()).isZero();
    assertThatThrownBy(() -> c.toBuilder().etcdPort(70_000).build()).hasMessage("etcd port 70000 is outside -1..65535");
    assertThat(c.console()).as("the console is on by default (where there is a metrics port)").isTrue();
    assertThat(c.toBuilder().console(false).build().toBuilder().build().console()).isFalse();
    assertThat(c.unsafeSkipRelease()).as("the release rule is kept unless asked").isFalse();
    assertThat(c.toBuilder().unsafeSkipRelease(true).build().toBuilder().build().unsafeSkipRelease()).isTrue();
  }

  @Test
  void electionTimeoutIsMinDotDotMaxWithMaxTwiceMinByDefault() {
    assertThat(ServerConfig.builder("n1", DIR).raftAddress("h:1").electionTimeout("1s..3s").build()
        .electionTimeoutMaxMs()).isEqualTo(3000);
    ServerConfig c = ServerConfig.builder("n1", DIR).raftAddress("h:1").electionTimeout("500ms").build();
    assertThat(c.electionTimeoutMinMs()).isEqualTo(500);
    assertThat(c.electionTimeoutMaxMs()).isEqualTo(1000);
  }

  @Test
  void refusalsNameTheSettingsConcerned() {
    assertRefused(() -> ServerConfig.builder("n1", DIR).peers("n1=h1"), "invalid peer 'n1=h1'", "peers");
    assertRefused(() -> ServerConfig.builder("n1", DIR).peers("n1=h:1,n1=h:2"), "listed twice", "peers");
    assertRefused(() -> ServerConfig.builder("n9", DIR).peers("n1=h:1"), "--id n9 is not among --peers [n1]",
        "id", "peers");
    assertRefused(() -> ServerConfig.builder("n1", DIR).raftAddress("h"), "invalid --raft 'h'", "raft");
    assertRefused(() -> ServerConfig.builder("n1", DIR).electionTimeout("2s..1s"), "need 0 < MIN <= MAX",
        "election-timeout");
    assertRefused(() -> ServerConfig.builder("n1", DIR).electionTimeout("fast"), "'fast' is not a duration",
        "election-timeout");
    assertRefused(() -> ServerConfig.builder("n1", DIR).electionTimeout("1s..2s..3s"), "expected MIN[..MAX]",
        "election-timeout");
  }

  @Test
  void buildChecksTheSettingsTogether() {
    assertThatThrownBy(() -> ServerConfig.builder("n1", DIR).build()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not among the peers");
    assertThatThrownBy(() -> ServerConfig.builder("n1", DIR).raftAddress("h:1").metricsPort(70_000).build())
        .hasMessageContaining("metrics port 70000");
  }

  private static void assertRefused(Runnable step, String message, String... settings) {
    assertThatThrownBy(step::run).isInstanceOfSatisfying(InvalidSettingException.class, e -> {
      assertThat(e).hasMessageContaining(message);
      assertThat(e.settings()).containsExactly(settings);
    });
  }
}
