package io.regent.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.regent.client.RegentClient;
import io.regent.server.config.ServerConfig;
import io.regent.server.cluster.ClusterFixture;
import io.regent.server.cluster.LocalCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A 1-node cluster with a metrics port: /metrics has every series docs/operations.md lists with values that follow what
 * the test did (grants, a campaign, a keepalive, a revoke, a resign, an expiry, a snapshot); /readyz is 200.
 */
@Tag("cluster")
class MetricsEndpointTest {
  @RegisterExtension
  final ClusterFixture clusters = ClusterFixture.perTest();
  LocalCluster cluster;
  final HttpClient http = HttpClient.newHttpClient();

  @Test
  void scrapeAfterAGrantAndACampaign() throws Exception {
    cluster = clusters.start(1, c -> c.metricsPort(0).snapshots(40, 8 * 1024));
    cluster.awaitLeader();
    int port = cluster.node(0).metricsPort();
    assertThat(port).isPositive();
    assertThat(get(port, "/healthz").statusCode()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(10)).until(() -> get(port, "/readyz").statusCode() == 200);
    assertThat(get(port, "/readyz").body()).isEqualTo("ready\n");

    RegentClient client = cluster.clientOf(0);
    long lease = client.leases().grant(60_000);
    long token = client.elections().campaign("jobs", lease, ByteString.copyFromUtf8("a")).getToken();
    long other = client.leases().grant(60_000);
    client.leases().keepAlive(lease, 5_000);
    // A second candidate waits behind the holder: campaign in the background.
    Thread waiter = new Thread(() -> {
      try {
        client.elections().campaign("jobs", other, ByteString.copyFromUtf8("b"));
      } catch (RuntimeException ignored) {
        // cancelled when the cluster stops
      }
    });
    waiter.setDaemon(true);
    waiter.start();

    HttpResponse<String> r = get(port, "/metrics");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
      String m = get(port, "/metrics").body();
      assertThat(value(m, "regent_leases_live")).isEqualTo(2);
      assertThat(value(m, "regent_names_held")).isEqualTo(1);
      assertThat(value(m, "regent_candidates_waiting")).isEqualTo(1);
      assertThat(value(m, "regent_request_records"))
          .as("one per grant (each got a request id) and one per blocking campaign's attempt").isEqualTo(4);
    });
    String m = get(port, "/metrics").body();
    assertThat(value(m, "regent_kv_history_revisions")).as("no etcd key written").isZero();
    assertThat(value(m, "regent_kv_keys")).isZero();
    assertThat(value(m, "regent_kv_bytes")).isZero();
    assertThat(value(m, "regent_kv_history_bytes")).isZero();
    assertThat(value(m, "regent_lease_grants_total")).isEqualTo(2);
    assertThat(value(m, "regent_lease_expiries_total")).isZero();
    assertThat(value(m, "regent_lease_revocations_total")).isZero();
    assertThat(value(m, "regent_resigns_total")).isZero();
    assertThat(value(m, "regent_apply_seconds_count{command=\"grant\"")).isEqualTo(2);
    assertThat(value(m, "regent_apply_seconds_count{command=\"campaign\"")).isEqualTo(2); // holder + waiter
    assertThat(value(m, "regent_apply_seconds_sum{command=\"grant\"")).isPositive();
    assertThat(m).contains("regent_apply_seconds_bucket{command=\"grant\"");
    assertThat(value(m, "regent_ownership_changes_total{kind=\"elected\"")).isEqualTo(1);
    assertThat(value(m, "regent_ownership_changes_total{kind=\"resigned\"")).isZero();
    assertThat(value(m, "regent_raft_term")).isGreaterThanOrEqualTo(1);
    assertThat(value(m, "regent_raft_commit_index")).isGreaterThanOrEqualTo(token);
    assertThat(value(m, "regent_raft_applied_index")).isGreaterThanOrEqualTo(token);
    assertThat(value(m, "regent_raft_is_leader")).isEqualTo(1);
    assertThat(value(m, "regent_raft_has_leader")).isEqualTo(1);
    assertThat(value(m, "regent_raft_leader_changes_total")).isGreaterThanOrEqualTo(1);
    assertThat(value(m, "regent_snapshot_index")).isEqualTo(-1); // none taken yet
    assertThat(m).contains("regent_snapshot_size_bytes", "regent_snapshots_taken_total",
        "regent_snapshot_duration_seconds");
    assertThat(value(m, "regent_grpc_requests_seconds_count{method=\"regent.v1.Lease/Grant\",node=\"n0\","
        + "status=\"OK\"")).isEqualTo(2);
    assertThat(value(m, "regent_grpc_requests_seconds_count{method=\"regent.v1.Election/Campaign\",node=\"n0\","
        + "status=\"OK\"")).isEqualTo(1);
    assertThat(value(m, "regent_keepalive_confirm_seconds_count")).isEqualTo(1);
    assertThat(m).contains("regent_keepalive_confirm_seconds_bucket{");
    // One heap pool alone may be empty (G1's eden right after a collection): the pools together are not.
    assertThat(sum(m, "jvm_memory_used_bytes{area=\"heap\"")).isPositive();
    assertThat(m).contains("jvm_threads_live_threads", "process_uptime_seconds");

    client.leases().revoke(lease); // the waiting candidate takes the name
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
      String after = get(port, "/metrics").body();
      assertThat(value(after, "regent_lease_revocations_total")).isEqualTo(1);
      assertThat(value(after, "regent_lease_expiries_total")).isZero();
      assertThat(value(after, "regent_ownership_changes_total{kind=\"revoked\"")).isEqualTo(1);
      assertThat(value(after, "regent_ownership_changes_total{kind=\"elected\"")).isEqualTo(2);
    });

    await().atMost(Duration.ofSeconds(10)).until(() -> client.elections().leader("jobs").isPresent());
    client.elections().resign(client.elections().leader("jobs").orElseThrow());
    client.leases().grant(ServerConfig.DEFAULT_ELECTION_MAX_MS * 2); // never kept alive: the leader expires it
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      String after = get(port, "/metrics").body();
      assertThat(value(after, "regent_resigns_total")).isEqualTo(1);
      assertThat(value(after, "regent_ownership_changes_total{kind=\"resigned\"")).isEqualTo(1);
      assertThat(value(after, "regent_lease_expiries_total")).isEqualTo(1);
      assertThat(value(after, "regent_lease_revocations_total")).isEqualTo(1);
      assertThat(value(after, "regent_apply_seconds_count{command=\"expire\"")).isGreaterThanOrEqualTo(1);
      assertThat(value(after, "regent_apply_seconds_count{command=\"resign\"")).isEqualTo(1);
    });

    for (int i = 0; i < 40; i++) { // past the snapshot threshold
      client.leases().grant(60_000);
    }
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      String after = get(port, "/metrics").body();
      assertThat(value(after, "regent_snapshot_index")).isPositive();
      assertThat(value(after, "regent_snapshot_size_bytes")).isPositive();
      assertThat(value(after, "regent_snapshots_taken_total")).isGreaterThanOrEqualTo(1);
      assertThat(value(after, "regent_snapshot_duration_max_seconds")).isPositive();
    });
  }

  private HttpResponse<String> get(int port, String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The value of the first sample whose line starts with {@code prefix} (name, or name plus first labels). */
  static double value(String scrape, String prefix) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(prefix) + ".* (\\S+)$").matcher(scrape);
    if (!m.find()) {
      throw new AssertionError("no series " + prefix + " in\n" + scrape);
    }
    return Double.parseDouble(m.group(1));
  }

  /** The sum of every series whose line starts with {@code prefix}; 0 when none does. */
  static double sum(String scrape, String prefix) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(prefix) + ".* (\\S+)$").matcher(scrape);
    double total = 0;
    while (m.find()) {
      total += Double.parseDouble(m.group(1));
    }
    return total;
  }
}
