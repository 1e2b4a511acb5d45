package io.regent.jepsen.runner;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.jepsen.checker.Budget;
import io.regent.jepsen.checker.Verdict;
import io.regent.jepsen.history.EdnReader;
import io.regent.jepsen.history.History;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The retry workload's checks from a stored history (the negative control of its checker): the history of issue
 * #34's first scenario, a client told "elected" whose name the cluster then gave to another client, is invalid
 * on both counts; the same history with the first belief ended in time is valid.
 */
class RetryChecksTest {
  /** p1 elected with lease 7 at 1 s; the cleanup of its stranded call hands r0 to p2 (lease 9) at 4 s. */
  private static final String TWO_HOLDERS = """
      [{:process 1, :type :invoke, :f :renew, :value 7, :key "r0", :time 10}
       {:process 1, :type :ok, :f :renew, :value 7, :key "r0", :time 10, :renewing [0 9000000000], :ttl 3000,
        :lock-delay 0}
       {:process 2, :type :invoke, :f :renew, :value 9, :key "r0", :time 20}
       {:process 2, :type :ok, :f :renew, :value 9, :key "r0", :time 20, :renewing [0 9000000000], :ttl 3000,
        :lock-delay 0}
       {:process 1000000, :type :invoke, :f :read, :value nil, :key "r0", :time 2000000000}
       {:process 1000000, :type :ok, :f :read, :value [7 12], :key "r0", :time 2000000100}
       {:process 1000000, :type :invoke, :f :read, :value nil, :key "r0", :time 5000000000}
       {:process 1000000, :type :ok, :f :read, :value [9 40], :key "r0", :time 5000000100}
       {:process 1, :type :invoke, :f :release, :value 12, :key "r0", :time 8000000000}
       {:process 1, :type :ok, :f :release, :value 12, :key "r0", :time 8000000000, :held [1000000000 8000000000],
        :lease 7, :reason :resign}
       {:process 2, :type :invoke, :f :release, :value 40, :key "r0", :time 8500000000}
       {:process 2, :type :ok, :f :release, :value 40, :key "r0", :time 8500000000, :held [4000000000 8500000000],
        :lease 9, :reason :resign}]
      """;

  private static List<CheckOutcome> check(String edn) {
    History h = EdnReader.readHistory(edn);
    assertThat(HistoryChecks.detect(h)).isEqualTo("retry");
    return HistoryChecks.check("retry", h, Budget.ofTime(Duration.ofSeconds(5)));
  }

  @Test
  void twoClientsBelievingTheyHoldOneNameAreFlaggedTwice() {
    List<CheckOutcome> out = check(TWO_HOLDERS);
    assertThat(out).extracting(CheckOutcome::checker).containsExactly("exclusivity", "retry");
    assertThat(out).allSatisfy(o -> assertThat(o.verdict()).as(o.explanation()).isEqualTo(Verdict.INVALID));
    assertThat(out.get(1).anomaly()).singleElement().asString().contains("p1", "lease 7", "lease 9");
  }

  @Test
  void theSameHistoryWithTheFirstBeliefEndedInTimeIsValid() {
    String fine = TWO_HOLDERS.replace(":held [1000000000 8000000000]", ":held [1000000000 3900000000]");
    assertThat(check(fine)).allSatisfy(o -> assertThat(o.verdict()).as(o.explanation()).isEqualTo(Verdict.VALID));
  }
}
