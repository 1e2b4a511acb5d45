package io.regent.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.bench.load.JsonLines;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PerfReportTest {
  private static final String REGENT = "{\"date\":\"2026-11-30T15:12:53Z\",\"label\":\"regent-3\",\"target\":\"regent\","
      + "\"workload\":\"campaign\",\"clients\":16,\"mode\":\"closed\",\"rate\":0.0,\"seconds\":10.0,\"ops\":400,"
      + "\"throughput\":40.0,\"p50_ms\":20.0,\"p90_ms\":30.0,\"p99_ms\":40.0,\"p999_ms\":50.0,\"max_ms\":60.0,"
      + "\"errors\":{\"UNAVAILABLE\":2},\"server_cpu_cores\":1.5,\"load1\":3.0}";
  private static final String ETCD = REGENT.replace("regent-3", "etcd-3").replace("\"throughput\":40.0",
      "\"throughput\":20.0").replace("\"p50_ms\":20.0", "\"p50_ms\":10.0");

  @Test
  void parsesBenchLines() {
    Map<String, Object> r = JsonLines.parse(REGENT);
    assertThat(r.get("label")).isEqualTo("regent-3");
    assertThat(r.get("clients")).isEqualTo(16.0);
    assertThat(r.get("errors")).isEqualTo(Map.of("UNAVAILABLE", 2.0));
    assertThat(JsonLines.parse("{\"s\":\"a\\\"b\\u0041\",\"l\":[1,{}],\"n\":null}"))
        .containsEntry("s", "a\"bA").containsEntry("l", List.of(1.0, Map.of())).containsEntry("n", null);
  }

  @Test
  void tableAndRatios() {
    List<Map<String, Object>> runs = List.of(JsonLines.parse(REGENT), JsonLines.parse(ETCD));
    String table = PerfReport.table(runs);
    assertThat(table).contains("| campaign | etcd-3 | 16 | 20 | 10.00 |")
        .contains("| campaign | regent-3 | 16 | 40 | 20.00 | 30.00 | 40.00 | 50.00 | 60.0 | {UNAVAILABLE=2.0} | 1.50 |");
    assertThat(PerfReport.ratios(runs)).contains("| campaign | 16 | 2.00 | 2.00 |");
  }
}
