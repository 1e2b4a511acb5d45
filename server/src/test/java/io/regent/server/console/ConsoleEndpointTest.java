package io.regent.server.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.ByteString;
import io.regent.api.v1.CampaignResponse;
import io.regent.api.v1.LeaderKey;
import io.regent.client.GroupClient;
import io.regent.client.RegentClient;
import io.regent.server.cluster.ClusterFixture;
import io.regent.server.cluster.LocalCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console's JSON endpoints on a 3-node cluster, asked of a follower and of the leader: they report what the
 * test did (a holder with its token and time left, a waiter, a lock-delay in force, leases, a group whose
 * partitions move, the events in order, resumably), escape user-given names, and refuse bad requests with a
 * clear error and no change.
 */
@Tag("cluster")
class ConsoleEndpointTest {
  @RegisterExtension
  static final ClusterFixture CLUSTERS = ClusterFixture.perClass();
  static LocalCluster cluster;
  static final HttpClient HTTP = HttpClient.newHttpClient();
  static final String TRICKY = "jobs/<b>\"x\"&'y'";

  @BeforeAll
  static void start() throws Exception {
    cluster = CLUSTERS.start(3, c -> c.metricsPort(0));
    cluster.awaitLeader();
  }

  @AfterAll
  static void stop() throws Exception {
    cluster.close();
  }

  static HttpResponse<String> get(int node, String path) throws Exception {
    return send(node, path, "GET");
  }

  static HttpResponse<String> send(int node, String path, String method) throws Exception {
    URI uri = URI.create("http://127.0.0.1:" + cluster.node(node).metricsPort() + path);
    return HTTP.send(HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static JsonObject json(int node, String path) throws Exception {
    HttpResponse<String> r = get(node, path);
    assertThat(r.statusCode()).as("%s: %s", path, r.body()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
    return JsonParser.parseString(r.body()).getAsJsonObject();
  }

  static int follower() {
    return (cluster.awaitLeader() + 1) % cluster.size();
  }

  static JsonObject byKey(JsonArray a, String key, String value) {
    for (JsonElement e : a) {
      if (e.getAsJsonObject().get(key).getAsString().equals(value)) {
        return e.getAsJsonObject();
      }
    }
    throw new AssertionError("no " + key + "=" + value + " in " + a);
  }

  @Test
  void clusterNamesTheLeaderEveryMemberAndReadiness() throws Exception {
    int leader = cluster.awaitLeader();
    await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
      JsonObject c = json(follower(), "/console/api/cluster");
      assertThat(c.get("leader").getAsString()).isEqualTo(LocalCluster.id(leader));
      assertThat(c.get("role").getAsString()).isEqualTo("FOLLOWER");
      assertThat(c.get("ready").getAsBoolean()).isTrue();
      assertThat(c.get("members").getAsJsonArray()).hasSize(3);
      JsonObject lead = byKey(c.get("members").getAsJsonArray(), "id", LocalCluster.id(leader));
      assertThat(lead.get("leader").getAsBoolean()).isTrue();
      assertThat(lead.get("lastContactMs").getAsLong()).isNotNegative();
    });
    JsonObject c = json(leader, "/console/api/cluster");
    assertThat(c.get("role").getAsString()).isEqualTo("LEADER");
    assertThat(c.get("commitIndex").getAsLong()).isPositive();
    assertThat(c.get("term").getAsLong()).isPositive();
    for (JsonElement m : c.get("members").getAsJsonArray()) { // the leader hears from every follower
      JsonObject o = m.getAsJsonObject();
      assertThat(o.get("self").getAsBoolean() || o.has("lastContactMs") && !o.get("lastContactMs").isJsonNull())
          .as("%s", o).isTrue();
    }
  }

  @Test
  void statusNamesEachNodesConsoleUrl() {
    for (int i = 0; i < cluster.size(); i++) {
      String url = cluster.node(i).consoleUrl().orElseThrow();
      assertThat(url).isEqualTo("http://127.0.0.1:" + cluster.node(i).metricsPort() + "/console/");
      assertThat(cluster.clientOf(i).cluster().status(true).getConsoleUrl()).isEqualTo(url);
    }
  }

  @Test
  void namesShowHolderTokenTimeLeftWaitersAndLockDelay() throws Exception {
    RegentClient client = cluster.client();
    long lease = client.leases().grant(60_000);
    LeaderKey held = client.elections().campaign(TRICKY, lease, ByteString.copyFromUtf8("worker <1>"));
    CampaignResponse queued = client.elections().campaignWithTtl(TRICKY, 60_000, ByteString.copyFromUtf8("w2"), 0);
    assertThat(queued.getElected()).isFalse();
    // a lock whose 2 s lease is left to expire: its 60 s lock-delay is then in force
    CampaignResponse lock = client.elections().campaignWithTtl("locks/db", 2_000, ByteString.copyFromUtf8("db"),
        60_000);
    assertThat(lock.getElected()).isTrue();

    int node = follower();
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      JsonObject names = json(node, "/console/api/names?prefix=jobs/");
      JsonObject n = byKey(names.get("names").getAsJsonArray(), "name", TRICKY);
      JsonObject h = n.get("holder").getAsJsonObject();
      assertThat(h.get("token").getAsLong()).isEqualTo(held.getToken());
      assertThat(h.get("lease").getAsLong()).isEqualTo(lease);
      assertThat(h.get("value").getAsString()).isEqualTo("worker <1>");
      assertThat(h.get("ttlLeftMs").getAsLong()).isBetween(1L, 60_000L);
      assertThat(n.get("waiters").getAsJsonArray()).hasSize(1);
      assertThat(n.get("waiters").getAsJsonArray().get(0).getAsJsonObject().get("lease").getAsLong())
          .isEqualTo(queued.getLease());
      assertThat(names.get("names").getAsJsonArray()).allSatisfy(e ->
          assertThat(e.getAsJsonObject().get("name").getAsString()).startsWith("jobs/"));
    });
    String raw = get(node, "/console/api/names").body();
    assertThat(raw).as("markup characters of names are escaped in the JSON too").doesNotContain("<b>")
        .contains("\\u003cb\\u003e");

    await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
      JsonObject n = byKey(json(node, "/console/api/names?prefix=locks/").get("names").getAsJsonArray(),
          "name", "locks/db");
      assertThat(n.get("holder").isJsonNull()).isTrue();
      assertThat(n.get("lockDelay").getAsJsonObject().get("ms").getAsLong()).isEqualTo(60_000);
    });

    JsonObject leases = json(node, "/console/api/leases");
    JsonObject l = byKey(leases.get("leases").getAsJsonArray(), "id", String.valueOf(lease));
    assertThat(l.get("ttlMs").getAsLong()).isEqualTo(60_000);
    assertThat(l.get("names").getAsJsonArray().get(0).getAsString()).isEqualTo(TRICKY);
    assertThat(json(node, "/console/api/leases?limit=1").get("leases").getAsJsonArray()).hasSize(1);
  }

  @Test
  void groupsShowOwnersTokensAndMovesAndEventsFollowResumably() throws Exception {
    int node = follower();
    long after = json(node, "/console/api/events").get("next").getAsLong();
    GroupClient groups = new GroupClient(cluster.client());
    long a = groups.joinWithTtl("billing", "worker-a", 4, 60_000).getLease();
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      JsonObject g = byKey(json(node, "/console/api/groups").get("groups").getAsJsonArray(), "name", "billing");
      assertThat(g.get("owners").getAsJsonArray()).hasSize(4).allSatisfy(p -> {
        assertThat(p.getAsJsonObject().get("owner").getAsString()).isEqualTo("worker-a");
        assertThat(p.getAsJsonObject().get("token").getAsLong()).isPositive();
      });
    });
    groups.joinWithTtl("billing", "worker-b", 0, 60_000);
    // two partitions are asked to move to worker-b: they show worker-a as owner and worker-b as next
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      JsonObject g = byKey(json(node, "/console/api/groups").get("groups").getAsJsonArray(), "name", "billing");
      List<String> next = new ArrayList<>();
      for (JsonElement p : g.get("owners").getAsJsonArray()) {
        JsonElement n = p.getAsJsonObject().get("next");
        if (!n.isJsonNull()) {
          next.add(n.getAsString());
        }
      }
      assertThat(next).containsExactly("worker-b", "worker-b");
    });
    groups.leave("billing", "worker-a", a);
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      JsonObject g = byKey(json(node, "/console/api/groups").get("groups").getAsJsonArray(), "name", "billing");
      assertThat(g.get("owners").getAsJsonArray()).allSatisfy(p -> {
        assertThat(p.getAsJsonObject().get("owner").getAsString()).isEqualTo("worker-b");
        assertThat(p.getAsJsonObject().get("next").isJsonNull()).isTrue();
      });
    });

    JsonObject page = json(node, "/console/api/events?after=" + after);
    assertThat(page.get("compacted").getAsBoolean()).isFalse();
    JsonArray events = page.get("events").getAsJsonArray();
    assertThat(events).isNotEmpty().allSatisfy(e -> assertThat(e.getAsJsonObject().get("seq").getAsLong())
        .isGreaterThan(after));
    assertThat(events).anySatisfy(e -> {
      assertThat(e.getAsJsonObject().get("kind").getAsString()).isEqualTo("group_changed");
      assertThat(e.getAsJsonObject().get("name").getAsString()).isEqualTo("billing");
    });
    long next = page.get("next").getAsLong();
    JsonObject again = json(node, "/console/api/events?after=" + next);
    assertThat(again.get("events").getAsJsonArray()).as("nothing after the last one seen").isEmpty();
    assertThat(again.get("next").getAsLong()).isEqualTo(next);
    assertThat(json(node, "/console/api/events?after=" + (next + 1_000_000)).get("compacted").getAsBoolean())
        .as("a sequence number this node never gave (it restarted) is a gap").isTrue();
  }

  @Test
  void thePageAndItsFilesAreServedWithAStrictPolicy() throws Exception {
    HttpResponse<String> page = get(0, "/console/");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
    assertThat(page.headers().firstValue("Content-Security-Policy").orElse("")).contains("script-src 'self'")
        .contains("default-src 'none'");
    assertThat(page.body()).contains("<script src=\"console.js\"").doesNotContain("http://", "https://");
    assertThat(get(0, "/console/console.js").body()).contains("textContent").doesNotContain("innerHTML =");
    assertThat(get(0, "/console/console.css").statusCode()).isEqualTo(200);
    HttpResponse<String> bare = get(0, "/console");
    assertThat(bare.statusCode()).isEqualTo(308);
    assertThat(bare.headers().firstValue("Location")).contains("/console/");
    assertThat(get(0, "/metrics").statusCode()).as("beside /metrics").isEqualTo(200);
  }

  @Test
  void theOffSwitchLeavesTheMetricsPortWithoutAConsole(@TempDir Path dir) throws Exception {
    try (LocalCluster off = LocalCluster.start(1, dir, c -> c.metricsPort(0).console(false))) {
      off.awaitLeader();
      offSwitch(off);
    }
  }

  private static void offSwitch(LocalCluster off) throws Exception {
    int port = off.node(0).metricsPort();
    for (String path : List.of("/console/", "/console/api/cluster")) {
      HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
          .build(), HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as(path).isEqualTo(404);
    }
    assertThat(off.node(0).consoleUrl()).isEmpty();
    assertThat(off.clientOf(0).cluster().status(true).getConsoleUrl()).isEmpty();
    assertThat(off.node(0).metricsPort()).isPositive();
  }

  /** Holder, waiters and lock-delay of {@code name} as node 0's console shows them, without the time left. */
  private static String holderOf(String name) throws Exception {
    JsonObject n = byKey(json(0, "/console/api/names?prefix=" + name).get("names").getAsJsonArray(), "name", name);
    n.get("holder").getAsJsonObject().remove("ttlLeftMs");
    return n.toString();
  }

  @Test
  void badRequestsGetAClearErrorAndChangeNothing() throws Exception {
    RegentClient client = cluster.client();
    LeaderKey key = client.elections().campaign("bad/input", client.leases().grant(60_000),
        ByteString.copyFromUtf8("v"));
    // node 0 shows its own replica, which may apply the campaign after the leader answered it
    java.util.concurrent.atomic.AtomicReference<String> seen = new java.util.concurrent.atomic.AtomicReference<>();
    await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> seen.set(holderOf("bad/input")));
    String before = seen.get();
    Map<String, Integer> refused = Map.ofEntries(
        Map.entry("/console/api/nope", 404),
        Map.entry("/console/api/names?limit=0", 400),
        Map.entry("/console/api/names?limit=1001", 400),
        Map.entry("/console/api/names?limit=ten", 400),
        Map.entry("/console/api/names?limit=1&limit=2", 400),
        Map.entry("/console/api/names?colour=red", 400),
        Map.entry("/console/api/cluster?x=1", 400),
        Map.entry("/console/api/events?after=-1", 400),
        Map.entry("/console/api/events?after=1e3", 400),
        Map.entry("/console/?debug=1", 400));
    for (Map.Entry<String, Integer> e : refused.entrySet()) {
      HttpResponse<String> r = get(0, e.getKey());
      assertThat(r.statusCode()).as("%s: %s", e.getKey(), r.body()).isEqualTo(e.getValue());
      assertThat(JsonParser.parseString(r.body()).getAsJsonObject().get("error").getAsString()).isNotBlank();
    }
    assertThat(get(0, "/consolex").statusCode()).as("only /console and what is under it").isEqualTo(404);
    assertThat(get(0, "/console/api/names?limit=ten").body()).contains("limit").contains("1..1000");
    assertThat(get(0, "/console/api/names?colour=red").body()).contains("colour").contains("prefix, limit");
    for (String method : List.of("POST", "PUT", "DELETE")) {
      HttpResponse<String> r = send(0, "/console/api/names", method);
      assertThat(r.statusCode()).isEqualTo(405);
      assertThat(r.headers().firstValue("Allow")).contains("GET, HEAD");
    }
    assertThat(holderOf("bad/input")).isEqualTo(before);
    assertThat(client.elections().leader("bad/input").orElseThrow().getToken()).isEqualTo(key.getToken());
  }
}
