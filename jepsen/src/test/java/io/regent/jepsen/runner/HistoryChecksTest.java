package io.regent.jepsen.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.regent.jepsen.checker.Budget;
import io.regent.jepsen.checker.Verdict;
import io.regent.jepsen.history.EdnReader;
import io.regent.jepsen.history.History;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The per-workload checks, on hand-made histories in the format the workloads record. */
class HistoryChecksTest {
  private static final Budget BUDGET = Budget.ofTime(Duration.ofSeconds(10));

  private static History h(String edn) {
    return EdnReader.readHistory(edn);
  }

  private static Verdict verdict(String model, String edn) {
    return CheckOutcome.overall(HistoryChecks.check(model, h(edn), BUDGET));
  }

  private static final String ELECTION_OK = """
      [{:process 0, :type :invoke, :f :grant, :value nil, :key "e0"}
       {:process 0, :type :ok, :f :grant, :value 10, :key "e0"}
       {:process 1, :type :invoke, :f :read, :value nil, :key "e0"}
       {:process 1, :type :ok, :f :read, :value 10, :key "e0"}
       {:process 0, :type :invoke, :f :release, :value 10, :key "e0"}
       {:process 0, :type :ok, :f :release, :value 10, :key "e0", :held [5 20], :reason :resign}
       {:process 0, :type :invoke, :f :resign, :value 10, :key "e0"}
       {:process 0, :type :ok, :f :resign, :value 10, :key "e0"}
       {:process 1, :type :invoke, :f :grant, :value nil, :key "e0"}
       {:process 1, :type :ok, :f :grant, :value 14, :key "e0"}
       {:process 1, :type :invoke, :f :release, :value 14, :key "e0"}
       {:process 1, :type :ok, :f :release, :value 14, :key "e0", :held [30 40], :reason :resign}
       {:process :nemesis, :type :info, :f :start-kill, :value ["n1"]}]
      """;

  @Test
  void detectsTheWorkloadFromTheOps() {
    assertThat(HistoryChecks.detect(h(ELECTION_OK))).isEqualTo("election");
    assertThatThrownBy(() -> HistoryChecks.detect(h("[]"))).hasMessageContaining("no client operations");
    assertThat(HistoryChecks.detect(h("[{:process 0, :type :invoke, :f :grant, :value nil, :key \"e\"}]")))
        .isEqualTo("election");
    assertThat(HistoryChecks.detect(h("[{:process 0, :type :invoke, :f :append, :value [1 \"a\"]}]")))
        .isEqualTo("ledger");
    assertThat(HistoryChecks.detect(h("[{:process 0, :type :invoke, :f :cas, :value [1 2]}]")))
        .isEqualTo("cas-register");
    assertThat(HistoryChecks.detect(h("[{:process 0, :type :invoke, :f :acquire, :value nil}]")))
        .isEqualTo("mutex");
    assertThatThrownBy(() -> HistoryChecks.detect(h("[{:process 0, :type :invoke, :f :frob, :value 1}]")))
        .hasMessageContaining("--model");
  }

  @Test
  void aValidElectionHistoryIsValidForEveryElectionChecker() {
    assertThat(verdict("election", ELECTION_OK)).isEqualTo(Verdict.VALID);
    assertThat(verdict("lease-exclusivity", ELECTION_OK)).isEqualTo(Verdict.VALID);
  }

  @Test
  void twoGrantsOfOneTokenAreNotLinearizable() {
    String edn = """
        [{:process 0, :type :invoke, :f :grant, :value nil, :key "e0"}
         {:process 1, :type :invoke, :f :grant, :value nil, :key "e0"}
         {:process 0, :type :ok, :f :grant, :value 10, :key "e0"}
         {:process 1, :type :ok, :f :grant, :value 10, :key "e0"}]
        """;
    List<CheckOutcome> out = HistoryChecks.check("election", h(edn), BUDGET);
    assertThat(out.get(0).verdict()).isEqualTo(Verdict.INVALID);
    assertThat(out.get(0).anomaly()).isNotEmpty();
  }

  @Test
  void overlappingBeliefsAreInvalidAndNoBeliefAtAllIsUnknown() {
    String edn = """
        [{:process 0, :type :invoke, :f :release, :value 10, :key "x"}
         {:process 0, :type :ok, :f :release, :value 10, :key "x", :held [0 100]}
         {:process 1, :type :invoke, :f :release, :value 11, :key "x"}
         {:process 1, :type :ok, :f :release, :value 11, :key "x", :held [90 200]}]
        """;
    CheckOutcome excl = HistoryChecks.check("lease-exclusivity", h(edn), BUDGET).get(0);
    assertThat(HistoryChecks.check("election", h(edn), BUDGET).get(2).verdict()).isEqualTo(Verdict.INVALID);
    assertThat(excl.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(excl.explanation()).contains("p0").contains("p1");
    assertThat(excl.anomaly()).hasSize(2);
    String none = "[{:process 0, :type :invoke, :f :read, :value nil, :key \"x\"}"
        + " {:process 0, :type :ok, :f :read, :value nil, :key \"x\"}]";
    assertThat(HistoryChecks.check("lease-exclusivity", h(none), BUDGET).get(0).verdict())
        .isEqualTo(Verdict.UNKNOWN);
    assertThat(verdict("election", none)).isEqualTo(Verdict.VALID);
  }

  @Test
  void aReadInsideABeliefMustReturnTheBelieversToken() {
    String edn = """
        [{:process 0, :type :invoke, :f :grant, :value nil, :time 0, :key "e0"}
         {:process 0, :type :ok, :f :grant, :value 10, :time 10, :key "e0"}
         {:process 1, :type :invoke, :f :read, :value nil, :time 20, :key "e0"}
         {:process 1, :type :ok, :f :read, :value %s, :time 30, :key "e0"}
         {:process 1, :type :invoke, :f :read, :value nil, :time 40, :key "e1"}
         {:process 1, :type :ok, :f :read, :value nil, :time 50, :key "e1"}
         {:process 2, :type :invoke, :f :read, :value nil, :time 55, :key "e0"}
         {:process 0, :type :invoke, :f :release, :value 10, :time 60, :key "e0"}
         {:process 0, :type :ok, :f :release, :value 10, :time 60, :key "e0", :held [10 60]}
         {:process 2, :type :ok, :f :read, :value nil, :time 70, :key "e0"}]
        """;
    CheckOutcome ok = HistoryChecks.check("election", h(edn.formatted("10")), BUDGET).get(1);
    assertThat(ok.checker()).isEqualTo("belief");
    assertThat(ok.verdict()).isEqualTo(Verdict.VALID);
    assertThat(ok.stats()).containsEntry("reads-inside", 1L);
    CheckOutcome bad = HistoryChecks.check("election", h(edn.formatted("nil")), BUDGET).get(1);
    assertThat(bad.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(bad.explanation()).contains("p0").contains("token 10").contains("read nil");
    // FencedRegister alone accepts that read of nil: leases may expire without an operation.
    assertThat(HistoryChecks.check("election", h(edn.formatted("nil")), BUDGET).get(0).verdict())
        .isEqualTo(Verdict.VALID);
  }


  private static final String LEDGER = """
      [{:process 0, :type :invoke, :f :grant, :value nil, :key "l"}
       {:process 0, :type :ok, :f :grant, :value 10, :key "l"}
       {:process 0, :type :invoke, :f :append, :value [10 "p0-0"], :key "jepsen-ledger"}
       {:process 0, :type :ok, :f :append, :value [10 "p0-0"], :key "jepsen-ledger"}
       {:process 1, :type :invoke, :f :grant, :value nil, :key "l"}
       {:process 1, :type :ok, :f :grant, :value %s, :key "l"}
       {:process 1, :type :invoke, :f :append, :value [%s "p1-0"], :key "jepsen-ledger"}
       {:process 1, :type :ok, :f :append, :value [%s "p1-0"], :key "jepsen-ledger"}
       {:process 2, :type :invoke, :f :read-ledger, :value nil, :key "jepsen-ledger"}
       {:process 2, :type :ok, :f :read-ledger, :value %s, :key "jepsen-ledger"}]
      """;

  @Test
  void ledgerChecks() {
    String good = LEDGER.formatted(12, 12, 12, "[[10 \"p0\" \"p0-0\"] [12 \"p1\" \"p1-0\"]]");
    assertThat(verdict("ledger", good)).isEqualTo(Verdict.VALID);
    String lost = LEDGER.formatted(12, 12, 12, "[[10 \"p0\" \"p0-0\"]]");
    assertThat(HistoryChecks.check("ledger", h(lost), BUDGET).get(0).explanation()).contains("missing");
    String sameToken = LEDGER.formatted(10, 10, 10, "[[10 \"p0\" \"p0-0\"] [10 \"p1\" \"p1-0\"]]");
    CheckOutcome dup = HistoryChecks.check("ledger", h(sameToken), BUDGET).get(0);
    assertThat(dup.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(dup.explanation()).contains("granted to both p0 and p1");
    String noRead = good.substring(0, good.indexOf(" {:process 2, :type :ok, :f :read-ledger"))
        + " {:process 2, :type :fail, :f :read-ledger, :value nil, :key \"jepsen-ledger\"}]";
    assertThat(HistoryChecks.check("ledger", h(noRead), BUDGET).get(0).verdict()).isEqualTo(Verdict.UNKNOWN);
  }

  @Test
  void knossosModelsAreAvailable() {
    String cas = """
        [{:process 0, :type :invoke, :f :write, :value 1}
         {:process 0, :type :ok, :f :write, :value 1}
         {:process 1, :type :invoke, :f :read, :value nil}
         {:process 1, :type :ok, :f :read, :value 2}]
        """;
    assertThat(verdict("cas-register", cas)).isEqualTo(Verdict.INVALID);
    assertThat(verdict("auto", cas.replace(":value 2}", ":value 1}"))).isEqualTo(Verdict.VALID);
  }
}
