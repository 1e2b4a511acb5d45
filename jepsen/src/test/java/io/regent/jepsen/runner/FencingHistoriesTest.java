package io.regent.jepsen.runner;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.jepsen.checker.Budget;
import io.regent.jepsen.checker.Verdict;
import io.regent.jepsen.history.EdnReader;
import io.regent.jepsen.history.History;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Knossos-format fencing histories ({@code :acquire} / {@code :read-token}, value {@code [client
 * token]}, in {@code src/test/resources/fencing/}) are read by the fenced-register model: {@code good-*}
 * are valid, each {@code bad-*} is invalid for the reason its name gives; and a history of ops that
 * model does not read gets no verdict.
 */
class FencingHistoriesTest {
  private static final Budget BUDGET = Budget.ofTime(Duration.ofSeconds(10));

  private static History resource(String name) throws IOException {
    try (InputStream in = FencingHistoriesTest.class.getResourceAsStream("/fencing/" + name + ".edn")) {
      assertThat(in).as(name).isNotNull();
      return EdnReader.readHistory(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  private static CheckOutcome fenced(History h) {
    List<CheckOutcome> out = HistoryChecks.check("fenced-register", h, BUDGET);
    assertThat(out).hasSize(1);
    return out.get(0);
  }

  @Test
  void aValidFencingHistoryIsValidAndDetected() throws IOException {
    History h = resource("good-handover");
    assertThat(HistoryChecks.detect(h)).isEqualTo("fenced-register");
    CheckOutcome c = fenced(h);
    assertThat(c.verdict()).as(c.explanation()).isEqualTo(Verdict.VALID);
    assertThat(c.stats()).containsEntry("operations", 7L);
  }

  @ParameterizedTest
  @ValueSource(strings = {"bad-token-not-above:grant of token 4 is not above the last granted token is 5",
      "bad-wrong-holder:read token 3 held by 1 but it was granted to 0",
      "bad-stale-read:read token 3 but the last granted token is 6"})
  void eachBadFencingHistoryIsInvalidForItsReason(String caseAndReason) throws IOException {
    String[] parts = caseAndReason.split(":", 2);
    CheckOutcome c = fenced(resource(parts[0]));
    assertThat(c.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(c.explanation()).contains(parts[1]);
    assertThat(c.anomaly()).isNotEmpty();
  }

  @Test
  void opsTheModelDoesNotReadGiveUnknownNotValid() {
    String cas = """
        [{:process 0, :type :invoke, :f :write, :value 1}
         {:process 0, :type :ok, :f :write, :value 1}
         {:process 1, :type :invoke, :f :cas, :value [1 2]}
         {:process 1, :type :ok, :f :cas, :value [1 2]}]
        """;
    CheckOutcome c = fenced(EdnReader.readHistory(cas));
    assertThat(c.verdict()).isEqualTo(Verdict.UNKNOWN);
    assertThat(c.explanation()).contains("none of the history's 2 client operations (:cas :write)")
        .contains("nothing to check");
  }

  @Test
  void opsTheModelDoesNotReadOnANameItChecksGiveUnknown() {
    String cas = """
        [{:process 0, :type :invoke, :f :write, :value 1}
         {:process 0, :type :ok, :f :write, :value 1}
         {:process 1, :type :invoke, :f :read, :value nil}
         {:process 1, :type :ok, :f :read, :value 1}]
        """;
    CheckOutcome c = fenced(EdnReader.readHistory(cas));
    assertThat(c.verdict()).as("the read of 1 is not stale: the model cannot see the write").isEqualTo(Verdict.UNKNOWN);
    assertThat(c.explanation()).contains("1 client operations (:write)").contains("a verdict would ignore them");
  }

  @Test
  void aMutexHistoryIsNotAFencingHistory() {
    String mutex = """
        [{:process 0, :type :invoke, :f :acquire}
         {:process 0, :type :ok, :f :acquire}
         {:process 0, :type :invoke, :f :release}
         {:process 0, :type :ok, :f :release}]
        """;
    History h = EdnReader.readHistory(mutex);
    assertThat(HistoryChecks.detect(h)).isEqualTo("mutex");
    CheckOutcome c = fenced(h);
    assertThat(c.verdict()).isEqualTo(Verdict.UNKNOWN);
    assertThat(c.explanation()).contains("cannot check").contains(":acquire [client token]");
  }

  @Test
  void onlyFailedOperationsGiveUnknown() {
    String failed = """
        [{:process 0, :type :invoke, :f :grant, :value nil, :key "e0"}
         {:process 0, :type :fail, :f :grant, :value nil, :key "e0"}]
        """;
    CheckOutcome c = fenced(EdnReader.readHistory(failed));
    assertThat(c.verdict()).isEqualTo(Verdict.UNKNOWN);
    assertThat(c.explanation()).contains("nothing to check").contains("failed");
  }
}
