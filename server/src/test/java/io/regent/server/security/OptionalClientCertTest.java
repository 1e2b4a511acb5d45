package io.regent.server.security;

import io.regent.server.cluster.FreePorts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.client.RegentClient;
import io.regent.server.RegentServer;
import io.regent.server.config.ServerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * API over TLS with a CA but without {@code --client-cert-auth}: a client certificate is optional. A caller
 * that presents one is known by its CN; one that does not is anonymous and gets only what {@code *} rules give.
 */
@Tag("cluster")
class OptionalClientCertTest {
  @TempDir
  Path dir;

  @Test
  void anonymousCallersGetOnlyStarRulesAndCertificateHoldersTheirOwn() throws Exception {
    Path certs = dir.resolve("certs");
    TestCerts.write(certs, List.of("n0"), List.of("app"));
    Path permissions = Files.writeString(dir.resolve("permissions"), "app * lease\napp jobs/ campaign\n* * read\n");
    TlsFiles api = new TlsFiles(certs.resolve("n0.crt"), certs.resolve("n0.key"), certs.resolve("ca.crt"), false);
    int apiPort = FreePorts.next();
    ServerConfig config = ServerConfig.of("n0", Map.of("n0", "127.0.0.1:" + FreePorts.next()), apiPort, dir.resolve("n0"));
    try (RegentServer node = RegentServer.start(config, new Security(api, null, permissions));
         RegentClient anonymous = RegentClient.builder().endpoints(List.of("127.0.0.1:" + apiPort))
             .caCert(certs.resolve("ca.crt")).build();
         RegentClient app = RegentClient.builder().endpoints(List.of("127.0.0.1:" + apiPort))
             .caCert(certs.resolve("ca.crt")).clientCert(certs.resolve("app.crt"), certs.resolve("app.key")).build()) {
      var status = await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(anonymous.cluster()::status,
          s -> !s.getLeader().isEmpty());
      assertThat(status.getNode()).as("anonymous callers may read (* * read)").isEqualTo("n0");
      assertThatThrownBy(() -> anonymous.leases().grant(5_000)).isInstanceOfSatisfying(StatusRuntimeException.class,
          e -> {
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(e.getStatus().getDescription()).contains("without a client certificate").contains("lease");
      });
      long lease = app.leases().grant(5_000);
      assertThat(app.elections().campaign("jobs/x", lease, ByteString.copyFromUtf8("app")).getToken()).isPositive();
      assertThat(anonymous.elections().leader("jobs/x")).isPresent();
    }
  }

}
