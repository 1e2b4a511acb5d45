package io.regent.server.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.regent.server.RegentServer;
import io.regent.server.config.ServerConfig;
import io.regent.server.security.Security;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node whose API checks permissions refuses to serve the etcd port, which cannot check them. */
@Tag("cluster")
class EtcdPortRefusalTest {
  @TempDir
  Path dir;

  @Test
  void anEtcdPortWithAPermissionsFileIsRefusedBeforeAnythingStarts() {
    ServerConfig config = ServerConfig.builder("n1", dir.resolve("n1")).raftAddress("127.0.0.1:1").etcdPort(0)
        .build();
    assertThatThrownBy(() -> RegentServer.startMember(config, new Security(null, null, dir.resolve("perms.yaml"))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--etcd-port cannot be combined");
    assertThat(Files.exists(dir.resolve("n1"))).as("no data directory created").isFalse();
  }
}
