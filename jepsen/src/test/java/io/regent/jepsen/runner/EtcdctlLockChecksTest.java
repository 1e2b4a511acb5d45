package io.regent.jepsen.runner;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.jepsen.checker.Budget;
import io.regent.jepsen.checker.Verdict;
import io.regent.jepsen.history.EdnReader;
import io.regent.jepsen.history.History;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The etcdctl-lock workload's checks on hand-made histories: a valid one, and one bad variant per property. */
class EtcdctlLockChecksTest {
  /** Two holds of l0 one after the other with growing tokens, one of l1, one acquire that timed out. */
  private static final String VALID = """
      [{:process 0, :type :invoke, :f :acquire, :value nil, :key "l0"}
       {:process 0, :type :ok, :f :acquire, :value 12, :key "l0"}
       {:process 0, :type :invoke, :f :release, :value 12, :key "l0"}
       {:process 0, :type :ok, :f :release, :value 12, :key "l0", :held [10 20]}
       {:process 1, :type :invoke, :f :acquire, :value nil, :key "l0"}
       {:process 1, :type :ok, :f :acquire, :value 15, :key "l0"}
       {:process 1, :type :invoke, :f :release, :value 15, :key "l0"}
       {:process 1, :type :ok, :f :release, :value 15, :key "l0", :held [21 30]}
       {:process 2, :type :invoke, :f :acquire, :value nil, :key "l1"}
       {:process 2, :type :ok, :f :acquire, :value 13, :key "l1"}
       {:process 2, :type :invoke, :f :release, :value 13, :key "l1"}
       {:process 2, :type :ok, :f :release, :value 13, :key "l1", :held [15 25]}
       {:process 3, :type :invoke, :f :acquire, :value nil, :key "l1"}
       {:process 3, :type :info, :f :acquire, :value nil, :key "l1", :error "etcdctl did not lock"}]
      """;

  private static List<CheckOutcome> check(String edn) {
    History h = EdnReader.readHistory(edn);
    return HistoryChecks.check(HistoryChecks.detect(h), h, Budget.ofTime(Duration.ofSeconds(5)));
  }

  private static Verdict of(List<CheckOutcome> outcomes, String checker) {
    return outcomes.stream().filter(o -> o.checker().equals(checker)).findFirst().orElseThrow().verdict();
  }

  @Test
  void aHistoryOfHoldsOneAfterAnotherWithGrowingTokensIsValid() {
    assertThat(HistoryChecks.detect(EdnReader.readHistory(VALID))).isEqualTo("etcdctl-lock");
    List<CheckOutcome> out = check(VALID);
    assertThat(of(out, "exclusivity")).isEqualTo(Verdict.VALID);
    assertThat(of(out, "lock-tokens")).isEqualTo(Verdict.VALID);
  }

  @Test
  void twoHoldsOfOneLockAtOnceAreFlagged() {
    List<CheckOutcome> out = check(VALID.replace(":held [21 30]", ":held [19 30]"));
    assertThat(of(out, "exclusivity")).isEqualTo(Verdict.INVALID);
    assertThat(of(out, "lock-tokens")).isEqualTo(Verdict.VALID);
  }

  @Test
  void aLaterHoldWithASmallerTokenIsFlagged() {
    List<CheckOutcome> out = check(VALID.replace(":value 15, :key \"l0\", :held", ":value 11, :key \"l0\", :held"));
    assertThat(of(out, "lock-tokens")).isEqualTo(Verdict.INVALID);
    assertThat(of(out, "exclusivity")).isEqualTo(Verdict.VALID);
  }

  @Test
  void aRunInWhichNoHoldEndedProvesNothing() {
    String none = """
        [{:process 3, :type :invoke, :f :acquire, :value nil, :key "l1"}
         {:process 3, :type :info, :f :acquire, :value nil, :key "l1", :error "etcdctl did not lock"}
         {:process 4, :type :invoke, :f :release, :value 9, :key "l1"}
         {:process 4, :type :ok, :f :release, :value 9, :key "l1", :held [1 2]}]
        """.replace(":held [1 2]", ":nothing 0");
    List<CheckOutcome> out = HistoryChecks.check("etcdctl-lock", EdnReader.readHistory(none),
        Budget.ofTime(Duration.ofSeconds(5)));
    assertThat(of(out, "exclusivity")).isEqualTo(Verdict.UNKNOWN);
    assertThat(of(out, "lock-tokens")).isEqualTo(Verdict.UNKNOWN);
  }
}
