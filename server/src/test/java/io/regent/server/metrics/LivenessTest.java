package io.regent.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.regent.server.RegentServer;
import io.regent.server.cluster.ClusterFixture;
import io.regent.server.cluster.LocalCluster;
import io.regent.server.ratis.RaftSetup;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code /healthz} tells the truth (docs/operations.md, "Health"): a node whose Raft division stopped for good
 * (Ratis closes it when an apply throws, e.g. on a full disk) answers 503 with the reason, and tells whoever asked
 * ({@code regent server}, which then exits with {@link RegentServer#EXIT_DIVISION_STOPPED}). Before, {@code
 * /healthz} answered 200 while the process served HTTP, so no supervisor restarted such a node.
 */
@Tag("cluster")
class LivenessTest {
  @RegisterExtension
  final ClusterFixture clusters = ClusterFixture.perTest();
  final HttpClient http = HttpClient.newHttpClient();

  @Test
  void aStoppedDivisionFailsHealthzAndIsReportedOnce() throws Exception {
    LocalCluster cluster = clusters.start(1, c -> c.metricsPort(0));
    cluster.awaitLeader();
    RegentServer node = cluster.node(0);
    int port = node.metricsPort();
    assertThat(get(port, "/healthz").statusCode()).isEqualTo(200);
    String m = get(port, "/metrics").body();
    assertThat(MetricsEndpointTest.value(m, "regent_data_dir_free_bytes")).isPositive();
    assertThat(MetricsEndpointTest.value(m, "regent_data_dir_full")).isZero();
    AtomicReference<String> told = new AtomicReference<>();
    node.onDivisionStopped(reason -> assertThat(told.getAndSet(reason)).as("told once").isNull());

    node.raft().getDivision(RaftSetup.GROUP_ID).close(); // as Ratis does after an apply threw

    await().atMost(Duration.ofSeconds(10)).until(() -> get(port, "/healthz").statusCode() == 503);
    assertThat(get(port, "/healthz").body()).startsWith("not live: Raft division is not running");
    await().atMost(Duration.ofSeconds(5)).until(() -> told.get() != null);
    assertThat(told.get()).startsWith("Raft division is not running");
  }

  private HttpResponse<String> get(int port, String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
