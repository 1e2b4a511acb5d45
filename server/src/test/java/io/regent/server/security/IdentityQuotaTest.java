package io.regent.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import com.google.protobuf.ByteString;
import io.regent.api.v1.LeaderKey;
import io.regent.client.RegentClient;
import io.regent.client.RegentClientBuilder;
import io.regent.server.RegentServer;
import io.regent.server.cluster.FreePorts;
import io.regent.server.config.ServerConfig;
import io.regent.server.limits.AdmissionLimits;
import io.regent.server.limits.ServerLimits;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Per-identity quotas (docs/architecture.md §7.2): the identity is the client certificate's CN, or one default
 * identity without a certificate. An identity over its request rate or its live leases is refused with
 * RESOURCE_EXHAUSTED naming the quota and the identity, while another identity, and the default one, are served;
 * the refusals are in the node's metrics under the identity's tag.
 */
@Tag("cluster")
class IdentityQuotaTest {
  /** A burst of 10 calls and then one per 1000 s, so that the budget cannot refill during the test; 2 live leases. */
  static final AdmissionLimits QUOTAS = new AdmissionLimits(4_096, 4_096, 0.001, 10, 2, 1_000, 100, 100, true);
  /** Three names per identity; rates and leases that this test does not reach. */
  static final AdmissionLimits NAMES = new AdmissionLimits(4_096, 4_096, 100_000, 100_000, 1_000, 3, 100, 100, true);

  @TempDir
  Path dir;
  private Path certs;
  private List<String> endpoint;

  /** One node with {@code limits}, over TLS with the client identities {@code flood} and {@code polite}. */
  private RegentServer start(AdmissionLimits limits) throws Exception {
    certs = dir.resolve("certs");
    TestCerts.write(certs, List.of("n0"), List.of("flood", "polite"));
    TlsFiles api = new TlsFiles(certs.resolve("n0.crt"), certs.resolve("n0.key"), certs.resolve("ca.crt"), false);
    int apiPort = FreePorts.next();
    endpoint = List.of("127.0.0.1:" + apiPort);
    ServerConfig config = ServerConfig.of("n0", Map.of("n0", "127.0.0.1:" + FreePorts.next()), apiPort,
        dir.resolve("n0")).toBuilder().metricsPort(0).limits(ServerLimits.DEFAULTS.withAdmission(limits)).build();
    return RegentServer.start(config, new Security(api, null, null));
  }

  /** A client of the node with the certificate of {@code identity}, or with none ({@code null}: {@code _default}). */
  private RegentClient client(String identity) {
    RegentClientBuilder b = RegentClient.builder().endpoints(endpoint).caCert(certs.resolve("ca.crt"));
    if (identity != null) {
      b.clientCert(certs.resolve(identity + ".crt"), certs.resolve(identity + ".key"));
    }
    return b.build();
  }

  @Test
  void anIdentityOverItsQuotasIsRefusedWhileOthersAreServed() throws Exception {
    try (RegentServer node = start(QUOTAS);
         RegentClient flood = client("flood");
         RegentClient polite = client("polite");
         RegentClient anonymous = client(null)) {
      await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(anonymous.cluster()::status,
          s -> !s.getLeader().isEmpty());

      long first = flood.leases().grant(5_000);
      flood.leases().grant(5_000);
      assertThatThrownBy(() -> flood.leases().grant(5_000)).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        assertThat(e.getStatus().getDescription()).contains("identity 'flood'").contains("--max-leases-per-identity");
      });
      assertThat(polite.leases().grant(5_000)).isPositive();
      // keepalives do not spend the rate: an identity's leases bound them
      for (int i = 0; i < 20; i++) {
        assertThat(flood.leases().keepAlive(first, 5_000)).isPositive();
      }
      StatusRuntimeException limited = null;
      for (int i = 0; i < 20 && limited == null; i++) {
        try {
          flood.elections().leader("jobs");
        } catch (StatusRuntimeException e) {
          limited = e;
        }
      }
      assertThat(limited).isNotNull();
      assertThat(limited.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertThat(limited.getStatus().getDescription()).contains("identity 'flood'").contains("--identity-request-rate");
      assertThat(polite.elections().leader("jobs")).isEmpty();
      assertThat(anonymous.elections().leader("jobs")).isEmpty();

      String scraped = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + node.metricsPort() + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      assertThat(scraped).containsPattern("regent_admission_refused_total\\{[^}]*identity=\"flood\"[^}]*reason=\"rate\""
          + "[^}]*} [1-9]");
      assertThat(scraped).containsPattern("regent_admission_leases\\{[^}]*identity=\"flood\"[^}]*} 2");
      assertThat(scraped).containsPattern("regent_admission_leases\\{[^}]*identity=\"polite\"[^}]*} 1");
    }
  }

  /**
   * Names per identity: the leases an identity was granted through a node hold at most its limit, whether a name
   * was taken by a campaign with a lease, a campaign with a TTL (granted and elected in one entry) or CampaignAll; a
   * name resigned counts no more; another identity is not held back.
   */
  @Test
  void anIdentityAtItsNamesLimitCampaignsNoMoreUntilItResigns() throws Exception {
    try (RegentServer node = start(NAMES);
         RegentClient flood = client("flood");
         RegentClient polite = client("polite")) {
      await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(polite.cluster()::status,
          s -> !s.getLeader().isEmpty());

      long lease = flood.leases().grant(60_000);
      LeaderKey a = flood.elections().campaign("a", lease, ByteString.EMPTY);
      flood.elections().campaignAll(List.of("b", "c"), lease, ByteString.EMPTY);
      assertRefused(() -> flood.elections().campaign("d", lease, ByteString.EMPTY));
      assertRefused(() -> flood.elections().campaignWithTtl("d", 60_000, ByteString.EMPTY, 0));
      assertThat(polite.elections().campaignWithTtl("d", 60_000, ByteString.EMPTY, 0).getElected()).isTrue();
      assertThat(polite.elections().campaign("e", polite.leases().grant(60_000),
          ByteString.EMPTY).getToken()).isPositive();

      flood.elections().resign(a);
      // the Resign's event is applied before its answer, so the name no longer counts
      assertThat(flood.elections().campaignWithTtl("f", 60_000, ByteString.EMPTY, 0).getElected()).isTrue();
      assertRefused(() -> flood.elections().campaignAll(List.of("g"), lease, ByteString.EMPTY));
      assertThat(polite.elections().leader("g")).isEmpty();

      String scraped = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + node.metricsPort() + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      assertThat(scraped).containsPattern("regent_admission_names\\{[^}]*identity=\"flood\"[^}]*} 3");
      assertThat(scraped).containsPattern("regent_admission_names\\{[^}]*identity=\"polite\"[^}]*} 2");
    }
  }

  private static void assertRefused(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
    assertThatThrownBy(call).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertThat(e.getStatus().getDescription()).contains("identity 'flood'").contains("--max-names-per-identity 3");
    });
  }
}
