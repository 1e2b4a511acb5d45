package io.regent.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.ByteString;
import io.regent.api.v1.LeaderKey;
import io.regent.cli.command.SnapshotCommandTest;
import io.regent.client.GroupClient;
import io.regent.client.RegentClient;
import io.regent.process.ChildProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web console in a real browser: {@code regent cluster up} (the module's shared cluster, {@link SharedClusterUp})
 * has started 3 nodes and written DIR/console-url; Debian's headless Chromium opens it; the test reads the live DOM
 * over the DevTools protocol and finds the leader, a holder with its fencing token, a lock with its lock-delay, a name
 * full of markup shown as text, and an ownership group whose partitions move to a new member while the page stays open
 * (the page's own polling shows it); then saves a screenshot to target/console.png. Needs {@code /usr/bin/chromium}
 * (.ci/run installs it). Every name, lock and group is this class's own, and only those are asserted on: other classes
 * use the same cluster.
 */
@Tag("cluster")
@ExtendWith(SharedClusterUp.class)
class ConsoleBrowserTest {
  static final String CHROMIUM = "/usr/bin/chromium";
  static final Duration WAIT = Duration.ofSeconds(20);
  static final Path SCREENSHOT = Path.of("target", "console.png");

  @TempDir
  Path dir;
  ChildProcess browser;

  @AfterEach
  void down() {
    if (browser != null) {
      browser.close(); // by pid: SIGTERM, then SIGKILL, then its process group (zygote, renderers)
    }
  }

  @Test
  void theConsoleShowsTheLeaderAHolderAndOwnershipMovingLive(ProcessCluster cluster) throws Exception {
    assertThat(Path.of(CHROMIUM)).as("headless Chromium: apt-get install chromium").isExecutable();
    String schedulerName = SharedClusterUp.name("console-scheduler");
    String markup = SharedClusterUp.name("console-tenants") + "/<img src=x onerror=alert(1)>";
    String lockName = SharedClusterUp.name("console-lock");
    String group = SharedClusterUp.name("console-billing");
    String url = Files.readString(cluster.dir().resolve(ClusterUpCommand.CONSOLE_URL_FILE)).strip();
    assertThat(url).isEqualTo("http://127.0.0.1:" + cluster.nodes().get(0).metricsPort() + "/console/");
    String firstEndpoint = cluster.nodes().get(0).apiAddress();
    SnapshotCommandTest.Run status = SnapshotCommandTest.run("status", "-w", "json", "--endpoints", firstEndpoint);
    assertThat(status.code()).as(status.err()).isZero();
    assertThat(JsonParser.parseString(status.out()).getAsJsonObject().get("console_url").getAsString())
        .isEqualTo(url);

    RegentClient client = RegentClient.connect(cluster.endpoints());
    try (client) {
      long lease = client.leases().grant(60_000);
      LeaderKey scheduler = client.elections().campaign(schedulerName, lease,
          ByteString.copyFromUtf8("host-a:8080"));
      client.elections().campaign(markup, lease, ByteString.copyFromUtf8("<script>alert(2)</script>"));
      LeaderKey ledgerLock = client.elections().campaign(lockName, lease, ByteString.copyFromUtf8("writer-1"),
          30_000);
      GroupClient groups = new GroupClient(client);
      long a = groups.joinWithTtl(group, "worker-a", 8, 60_000).getLease();

      browser = ChildProcess.builder("chromium", List.of(CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
              "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
              "--disable-sync", "--disable-dev-shm-usage", "--user-data-dir=" + dir.resolve("chromium-profile"),
              "--window-size=1400,1000", "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", url))
          .newSession().captureOutput(line -> { }).start();
      String listening = browser.awaitLine(l -> l.contains("DevTools listening on ws://"), WAIT);
      Matcher port = Pattern.compile("ws://[^:/]+:(\\d+)/").matcher(listening);
      assertThat(port.find()).as(listening).isTrue();
      try (DevTools page = DevTools.connect(pageSocket(Integer.parseInt(port.group(1)), url))) {
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() ->
            assertThat(page.text("document.getElementById('leader').textContent"))
                .isEqualTo(client.cluster().status().getLeader()));
        String row = "document.querySelector('tr[data-name=\"" + schedulerName + "\"]')";
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
          assertThat(page.text(row + ".querySelector('td.token').textContent"))
              .isEqualTo(String.valueOf(scheduler.getToken()));
          assertThat(page.text(row + ".querySelector('td.lease').textContent")).isEqualTo(String.valueOf(lease));
          assertThat(page.text(row + ".querySelector('td.value').textContent")).isEqualTo("host-a:8080");
        });
        // user input is text, never markup: the name's <img> and the value's <script> are not elements
        String tricky = "[...document.querySelectorAll('tr[data-name]')].find(r => r.dataset.name === "
            + quoted(markup) + ")";
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() ->
            assertThat(page.text(tricky + ".querySelector('td.name').textContent")).isEqualTo(markup));
        assertThat(page.eval("document.querySelectorAll('main img, main script').length").getAsInt()).isZero();
        String lock = "document.querySelector('tr[data-lock=\"" + lockName + "\"]')";
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
          assertThat(page.text(lock + ".cells[2].textContent")).isEqualTo(String.valueOf(ledgerLock.getToken()));
          assertThat(page.text(lock + ".cells[3].textContent")).isEqualTo("30.0 s");
        });
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() ->
            assertThat(owners(page, group)).hasSize(8).containsOnly("worker-a"));

        // change ownership while the page is open: worker-b joins, worker-a leaves; the page shows it live
        groups.joinWithTtl(group, "worker-b", 0, 60_000);
        groups.leave(group, "worker-a", a);
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() ->
            assertThat(owners(page, group)).hasSize(8).containsOnly("worker-b"));
        assertThat(page.eval("document.querySelectorAll('.cell.changed[data-group=\"" + group + "\"]').length")
            .getAsInt()).as("moved partitions are highlighted").isPositive();
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() ->
            assertThat(page.eval("document.querySelectorAll('#events li[data-kind=\"group_changed\"]"
                + "[data-event-name=\"" + group + "\"]').length")
                .getAsInt()).isPositive());
        // a member that joins now is assigned half of them: those wait for worker-b to release, shown as moving
        groups.joinWithTtl(group, "worker-c", 0, 60_000);
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() ->
            assertThat(page.eval("document.querySelectorAll('.cell.moving[data-group=\"" + group + "\"]').length")
                .getAsInt()).isPositive());
        screenshot(page);
      }
    }
    assertThat(SCREENSHOT).isNotEmptyFile();
  }

  /** The owners of {@code group}'s partitions as the page shows them, in partition order. */
  private static List<String> owners(DevTools page, String group) throws Exception {
    JsonArray a = page.eval("[...document.querySelectorAll('.cell[data-group=\"" + group + "\"]')]"
        + ".map(c => c.dataset.owner)").getAsJsonArray();
    List<String> out = new ArrayList<>();
    a.forEach(e -> out.add(e.getAsString()));
    return out;
  }

  /** The DevTools WebSocket of the page showing {@code url}, once the browser lists it. */
  private static String pageSocket(int port, String url) {
    HttpClient http = HttpClient.newHttpClient();
    return await().atMost(WAIT).ignoreExceptions().until(() -> {
      String body = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/json/list")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      for (JsonElement t : JsonParser.parseString(body).getAsJsonArray()) {
        JsonObject o = t.getAsJsonObject();
        if (o.get("type").getAsString().equals("page") && o.get("url").getAsString().startsWith(url)) {
          return o.get("webSocketDebuggerUrl").getAsString();
        }
      }
      return null;
    }, s -> s != null);
  }

  /** The whole page as a PNG, 1400 px wide, to {@link #SCREENSHOT}. */
  private static void screenshot(DevTools page) throws Exception {
    int height = Math.min(4000, page.eval("document.documentElement.scrollHeight").getAsInt());
    JsonObject metrics = new JsonObject();
    metrics.addProperty("width", 1400);
    metrics.addProperty("height", height);
    metrics.addProperty("deviceScaleFactor", 1);
    metrics.addProperty("mobile", false);
    page.call("Emulation.setDeviceMetricsOverride", metrics);
    JsonObject shot = new JsonObject();
    shot.addProperty("format", "png");
    String png = page.call("Page.captureScreenshot", shot).get("data").getAsString();
    Files.createDirectories(SCREENSHOT.getParent());
    Files.write(SCREENSHOT, Base64.getDecoder().decode(png));
  }

  private static String quoted(String s) {
    JsonArray a = new JsonArray();
    a.add(s);
    String json = a.toString();
    return json.substring(1, json.length() - 1);
  }
}
