package io.regent.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonParser;
import io.regent.cli.command.SnapshotCommandTest.Run;
import io.regent.cli.command.SnapshotCommandTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code regent cluster up} gives every node an etcd-compatible port, lists them in DIR/etcd-endpoints, and
 * {@code regent status -w json} names the node's; etcd's {@code etcdctl} works with what the file says. The cluster
 * is the module's shared one ({@link SharedClusterUp}), made by {@code cluster up} like any other.
 */
@Tag("cluster")
@ExtendWith(SharedClusterUp.class)
class ClusterUpEtcdTest {
  @TempDir
  Path dir;

  @Test
  void theEtcdEndpointsFileNamesWhatEtcdctlUses(ProcessCluster cluster) throws Exception {
    String endpoints = Files.readString(cluster.dir().resolve(ClusterUpCommand.ETCD_ENDPOINTS_FILE)).strip();
    assertThat(endpoints).isEqualTo(String.join(",", cluster.nodes().stream()
        .map(n -> "127.0.0.1:" + (n.apiPort() + 200)).toList()));
    ProcessCluster.Node n1 = cluster.nodes().get(0);
    Run status = SnapshotCommandTest.run("status", "-w", "json", "--endpoints", n1.apiAddress());
    assertThat(status.code()).as(status.err()).isZero();
    assertThat(JsonParser.parseString(status.out()).getAsJsonObject().get("etcd_address").getAsString())
        .isEqualTo("127.0.0.1:" + (n1.apiPort() + 200));

    Path out = dir.resolve("etcdctl.out");
    Process etcdctl = new ProcessBuilder("etcdctl", "--endpoints=" + endpoints, "--command-timeout=20s", "lease",
        "grant", "5").redirectErrorStream(true).redirectOutput(out.toFile()).start();
    assertThat(etcdctl.waitFor(60, TimeUnit.SECONDS)).as("etcdctl ended").isTrue();
    assertThat(Files.readString(out, StandardCharsets.UTF_8)).matches("lease [0-9a-f]+ granted with TTL\\(5s\\)\\s*");
    assertThat(etcdctl.exitValue()).isZero();

    // a key put through etcd's port counts in the keyspace's figures of status
    String key = SharedClusterUp.name("status-kv");
    Process put = new ProcessBuilder("etcdctl", "--endpoints=" + endpoints, "--command-timeout=20s", "put", key, "v")
        .redirectErrorStream(true).redirectOutput(out.toFile()).start();
    assertThat(put.waitFor(60, TimeUnit.SECONDS) && put.exitValue() == 0).as(Files.readString(out)).isTrue();
    // n1's own replica answers: it may apply the put a moment after the leader answered etcdctl
    await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
      Run withKey = SnapshotCommandTest.run("status", "-w", "json", "--endpoints", n1.apiAddress());
      var kv = JsonParser.parseString(withKey.out()).getAsJsonObject().getAsJsonObject("kv");
      assertThat(kv.get("keys").getAsLong()).as(withKey.out()).isPositive();
      assertThat(kv.get("bytes").getAsLong()).as(withKey.out()).isPositive();
      // and in its metrics, on the port its console is served from
      String console = JsonParser.parseString(withKey.out()).getAsJsonObject().get("console_url").getAsString();
      String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(console.replace("/console/",
          "/metrics"))).build(), HttpResponse.BodyHandlers.ofString()).body();
      assertThat(metrics).containsPattern("(?m)^regent_kv_keys\\{[^}]*} [1-9]")
          .containsPattern("(?m)^regent_kv_bytes\\{[^}]*} [1-9]");
    });

    // a watch open on n1's etcd port counts among its watchers until it ends
    long before = watchers(n1);
    String n1Etcd = "127.0.0.1:" + (n1.apiPort() + 200);
    Process watch = new ProcessBuilder("etcdctl", "--endpoints=" + n1Etcd, "watch", key)
        .redirectErrorStream(true).redirectOutput(dir.resolve("watch.out").toFile()).start();
    try {
      await().atMost(Duration.ofSeconds(20)).until(() -> watchers(n1) == before + 1);
    } finally {
      watch.destroy();
      watch.waitFor(10, TimeUnit.SECONDS);
    }
    await().atMost(Duration.ofSeconds(20)).until(() -> watchers(n1) == before);
  }

  /** The Watch watchers open on {@code node}'s etcd port, as its status says. */
  private static long watchers(ProcessCluster.Node node) throws Exception {
    Run s = SnapshotCommandTest.run("status", "-w", "json", "--endpoints", node.apiAddress());
    return JsonParser.parseString(s.out()).getAsJsonObject().getAsJsonObject("kv").get("watchers").getAsLong();
  }
}
