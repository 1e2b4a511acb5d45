package io.regent.jepsen.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.jepsen.history.EdnParser;
import io.regent.jepsen.history.EdnReader;
import io.regent.jepsen.history.History;
import io.regent.jepsen.history.Keyword;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** results.edn/json, timeline.html and the PNG plots, from a small history. */
class ReportsTest {
  private static final History H = EdnReader.readHistory("""
      [{:process 0, :type :invoke, :f :grant, :value nil, :time 1000000, :key "e0"}
       {:process :nemesis, :type :info, :f :start-kill, :value ["n1"], :time 1500000000}
       {:process 0, :type :ok, :f :grant, :value 10, :time 2000000000, :key "e0"}
       {:process 1, :type :invoke, :f :read, :value nil, :time 2100000000, :key "e0"}
       {:process 1, :type :info, :f :read, :value nil, :time 3100000000, :key "e0", :error "DEADLINE_EXCEEDED"}
       {:process :nemesis, :type :info, :f :stop-kill, :value ["n1"], :time 4000000000}
       {:process :nemesis, :type :info, :f :start-pause, :value ["n2"], :time 4500000000}
       {:process 6, :type :invoke, :f :read, :value nil, :time 4600000000, :key "e0"}]
      """);

  @Test
  void nemesisWindowsPairStartsWithStopsAndRunToTheEndWhenOpen() {
    List<TimelineHtml.Window> w = TimelineHtml.windows(H);
    assertThat(w).hasSize(2);
    assertThat(w.get(0).fault()).isEqualTo("kill");
    assertThat(w.get(0).end()).isEqualTo(4_000_000_000L);
    assertThat(w.get(1).fault()).isEqualTo("pause");
    assertThat(w.get(1).end()).isEqualTo(4_600_000_000L);
  }

  @Test
  void timelineShowsEveryOpAndWindow(@TempDir Path dir) throws Exception {
    TimelineHtml.write(H, "t <1>", dir.resolve("timeline.html"));
    String html = Files.readString(dir.resolve("timeline.html"));
    assertThat(html).contains("t &lt;1&gt;").contains("class=\"op ok\"").contains("class=\"op info\"")
        .contains("class=\"op open\"").contains("class=\"nem\"").contains(">p6<").doesNotContain("<script");
  }

  @Test
  void plotsArePngFiles(@TempDir Path dir) throws Exception {
    Plots.write(H, "t", dir);
    for (String f : List.of("latency.png", "rate.png")) {
      byte[] b = Files.readAllBytes(dir.resolve(f));
      assertThat(b.length).isGreaterThan(1000);
      assertThat(new String(b, 1, 3, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("PNG");
    }
  }

  @Test
  void resultsAreValidEdnAndJson(@TempDir Path dir) throws Exception {
    Map<Keyword, Object> m = new LinkedHashMap<>();
    m.put(Keyword.of("valid?"), Keyword.of("unknown"));
    m.put(Keyword.of("notes"), List.of("a \"quoted\"\nline"));
    Map<Keyword, Object> inner = new LinkedHashMap<>();
    inner.put(Keyword.of("valid?"), false);
    inner.put(Keyword.of("stats"), Map.of("operations", 3L));
    m.put(Keyword.of("checkers"), Map.of(Keyword.of("linearizable"), inner));
    ResultsFiles.write(dir, m);
    Object back = EdnParser.read(Files.readString(dir.resolve("results.edn")));
    assertThat(back).isInstanceOf(Map.class);
    assertThat(((Map<?, ?>) back).get(Keyword.of("valid?"))).isEqualTo(Keyword.of("unknown"));
    String json = Files.readString(dir.resolve("results.json"));
    assertThat(json).contains("\"valid?\": \"unknown\"").contains("\\\"quoted\\\"\\nline")
        .contains("\"valid?\": false").contains("\"operations\": 3");
  }
}
