package io.regent.cli.command;

import static io.regent.cli.command.SnapshotCommandTest.freePort;
import static io.regent.cli.command.SnapshotCommandTest.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.regent.cli.command.SnapshotCommandTest.Run;
import io.regent.server.RegentServer;
import io.regent.server.config.ServerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code regent status} asked of a follower still prints the leader's figures of follower lag, asked of the leader
 * at the API address it published (docs/operations.md, "Follower lag").
 */
@Tag("cluster")
class StatusLagCommandTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir
  Path dir;
  final List<RegentServer> nodes = new ArrayList<>();
  final Map<String, String> endpoints = new LinkedHashMap<>();

  @BeforeEach
  void start() throws Exception {
    Map<String, String> peers = new LinkedHashMap<>();
    for (int i = 1; i <= 3; i++) {
      peers.put("s" + i, "127.0.0.1:" + freePort());
      endpoints.put("s" + i, "127.0.0.1:" + freePort());
    }
    for (String id : peers.keySet()) {
      int apiPort = Integer.parseInt(endpoints.get(id).substring("127.0.0.1:".length()));
      nodes.add(RegentServer.start(ServerConfig.of(id, peers, apiPort, dir.resolve(id))));
    }
  }

  @AfterEach
  void stop() throws Exception {
    for (RegentServer n : nodes) {
      n.close();
    }
  }

  private static JsonObject status(String endpoint) {
    Run r = run("status", "--endpoints", endpoint, "-w", "json");
    assertThat(r.code()).as(r.err()).isZero();
    return JsonParser.parseString(r.out()).getAsJsonObject();
  }

  private static boolean everyMemberHasLag(JsonObject s) {
    for (JsonElement m : s.getAsJsonArray("members")) {
      if (m.getAsJsonObject().get("lag_entries").isJsonNull()) {
        return false;
      }
    }
    return s.getAsJsonArray("members").size() == 3;
  }

  @Test
  void aFollowersAnswerCarriesTheLeadersLagFigures() {
    String leader = await().atMost(WAIT).until(() -> status(endpoints.get("s1")).get("leader"),
        l -> !l.isJsonNull()).getAsString();
    String follower = endpoints.keySet().stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();
    // the leader's lag figures appear once it has published its API address through Raft
    JsonObject s = await().atMost(WAIT).until(() -> status(endpoints.get(follower)), StatusLagCommandTest::everyMemberHasLag);
    assertThat(s.get("node").getAsString()).isEqualTo(follower);
    assertThat(s.get("degraded").isJsonNull()).isTrue();
    for (JsonElement m : s.getAsJsonArray("members")) {
      assertThat(m.getAsJsonObject().get("match_index").getAsLong()).as("%s", m).isPositive();
      assertThat(m.getAsJsonObject().get("lag_seconds").getAsDouble()).as("%s", m).isLessThan(10);
    }
    Run text = run("status", "--endpoints", endpoints.get(follower));
    assertThat(text.out()).contains("lag      " + follower + " match=").doesNotContain("lag      " + leader)
        .doesNotContain("known on the leader only");
  }
}
