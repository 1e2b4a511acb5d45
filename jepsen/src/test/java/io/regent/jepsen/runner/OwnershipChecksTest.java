package io.regent.jepsen.runner;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.jepsen.checker.Budget;
import io.regent.jepsen.checker.Verdict;
import io.regent.jepsen.history.EdnReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The ownership workload's checks on hand-made histories in the format it records: one valid history, and
 * one invalid (or unknown) variant of it per property.
 */
class OwnershipChecksTest {
  /**
   * p0 owns partition 0 (token 10), appends, leaves; p1 owns partition 1 (token 12) and then partition 0
   * (token 20); membership goes quiet at 1 ms with a bound of 1000 ms; the status read after the bound shows
   * both partitions with p1, which believed them throughout; the final reads show the ledgers.
   */
  private static final String VALID = """
      [{:process 0, :type :invoke, :f :join, :value nil, :key "og", :time 0}
       {:process 0, :type :ok, :f :join, :value 7, :key "og", :time 5}
       {:process 1, :type :invoke, :f :join, :value nil, :key "og", :time 6}
       {:process 1, :type :ok, :f :join, :value 8, :key "og", :time 9}
       {:process 0, :type :invoke, :f :append, :value [10 "p0-0"], :key 0, :time 20}
       {:process 0, :type :ok, :f :append, :value [10 "p0-0"], :key 0, :time 30}
       {:process 1, :type :invoke, :f :append, :value [12 "p1-0"], :key 1, :time 31}
       {:process 1, :type :ok, :f :append, :value [12 "p1-0"], :key 1, :time 32}
       {:process 0, :type :invoke, :f :append, :value [10 "p0-1"], :key 0, :time 40}
       {:process 0, :type :fail, :f :append, :value [10 "p0-1"], :key 0, :time 50, :error "FAILED_PRECONDITION"}
       {:process 0, :type :invoke, :f :leave, :value nil, :key "og", :time 90}
       {:process -1, :type :invoke, :f :own, :value 10, :key 0, :time 100}
       {:process -1, :type :ok, :f :own, :value 10, :key 0, :time 100, :held [10 100], :reason :revoked}
       {:process 0, :type :ok, :f :leave, :value nil, :key "og", :time 110}
       {:process 1, :type :invoke, :f :append, :value [20 "p1-1"], :key 0, :time 200}
       {:process 1, :type :ok, :f :append, :value [20 "p1-1"], :key 0, :time 210}
       {:process 2, :type :invoke, :f :quiet, :value 1000, :key "og", :time 1000000}
       {:process 2, :type :ok, :f :quiet, :value 1000, :key "og", :time 1000000, :ttl-ms 800, :election-timeout-ms 200}
       {:process 2, :type :invoke, :f :status, :value nil, :key "og", :time 1500000000}
       {:process 2, :type :ok, :f :status, :value [[0 "p1" 20] [1 "p1" 12]], :key "og", :time 1500000100, :members ["p1" "p2"]}
       {:process -2, :type :invoke, :f :own, :value 20, :key 0, :time 1600000000}
       {:process -2, :type :ok, :f :own, :value 20, :key 0, :time 1600000000, :held [150 1600000000], :reason :leave}
       {:process -2, :type :invoke, :f :own, :value 12, :key 1, :time 1600000000}
       {:process -2, :type :ok, :f :own, :value 12, :key 1, :time 1600000000, :held [15 1600000000], :reason :leave}
       {:process 3, :type :invoke, :f :read-ledger, :value nil, :key 0, :time 1700000000}
       {:process 3, :type :ok, :f :read-ledger, :value [[10 "p0" "p0-0"] [20 "p1" "p1-1"]], :key 0, :time 1700000001}
       {:process 3, :type :invoke, :f :read-ledger, :value nil, :key 1, :time 1700000002}
       {:process 3, :type :ok, :f :read-ledger, :value [[12 "p1" "p1-0"]], :key 1, :time 1700000003}]
      """;

  private static Map<String, CheckOutcome> check(String edn) {
    List<CheckOutcome> out = HistoryChecks.check("ownership", EdnReader.readHistory(edn),
        Budget.ofTime(Duration.ofSeconds(5)));
    return out.stream().collect(Collectors.toMap(CheckOutcome::checker, o -> o));
  }

  private static String variant(String from, String to) {
    assertThat(VALID).contains(from);
    return VALID.replace(from, to);
  }

  @Test
  void theValidHistoryPassesEveryCheck() {
    Map<String, CheckOutcome> out = check(VALID);
    assertThat(out.keySet()).containsExactlyInAnyOrder("exclusivity", "fencing", "settled");
    out.values().forEach(o -> assertThat(o.verdict()).as(o.checker() + ": " + o.explanation())
        .isEqualTo(Verdict.VALID));
    assertThat(out.get("fencing").stats()).containsEntry("refused-appends", 1L).containsEntry("entries", 3L)
        .containsEntry("late-appends", 0L);
    assertThat(out.get("settled").stats()).containsEntry("settled-ms", 0L);
    assertThat(HistoryChecks.detect(EdnReader.readHistory(VALID))).isEqualTo("ownership");
  }

  @Test
  void twoMembersBelievingOnePartitionAtOnceIsInvalid() {
    // The negative control's anomaly: p1 is given partition 0 while p0 still believes it owns it.
    CheckOutcome o = check(variant("[150 1600000000]", "[50 1600000000]")).get("exclusivity");
    assertThat(o.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(o.explanation()).contains("p0").contains("p1");
    assertThat(o.anomaly()).hasSize(2);
  }

  @Test
  void aDeposedOwnersWriteAdmittedAfterItsSuccessorsFirstIsInvalid() {
    CheckOutcome o = check(variant("[20 \"p1\" \"p1-1\"]], :key 0",
        "[20 \"p1\" \"p1-1\"] [10 \"p0\" \"p0-1\"]], :key 0")).get("fencing");
    assertThat(o.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(o.explanation()).startsWith("partition 0: ").contains("token 10 after token 20");
  }

  @Test
  void aZombieWriteRefusedByTheLedgerIsCountedAndValid() {
    // p0's belief ends at 35; its append invoked at 40 with the old token is the zombie, refused.
    CheckOutcome o = check(variant("[10 100]", "[10 35]")).get("fencing");
    assertThat(o.verdict()).isEqualTo(Verdict.VALID);
    assertThat(o.stats()).containsEntry("late-appends", 1L).containsEntry("late-appends-refused", 1L)
        .containsEntry("late-appends-admitted", 0L);
  }

  @Test
  void aWriteWithATokenTheWriterWasNeverAssignedIsInvalid() {
    CheckOutcome o = check(variant("[12 \"p1\" \"p1-0\"]]", "[12 \"p1\" \"p1-0\"] [12 \"p0\" \"x\"]]"))
        .get("fencing");
    assertThat(o.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(o.explanation()).contains("granted to p1");
  }

  @Test
  void aNewOwnersTokenNotAboveItsPredecessorsIsInvalid() {
    String lower = VALID.replace(":value 20, :key 0, :time 1600000000", ":value 8, :key 0, :time 1600000000");
    assertThat(lower).isNotEqualTo(VALID);
    CheckOutcome o = check(lower).get("fencing");
    assertThat(o.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(o.explanation()).contains("p1 owned it with token 8 after p0 had owned it with token 10");
    String same = VALID.replace(":value 20, :key 0, :time 1600000000", ":value 10, :key 0, :time 1600000000");
    assertThat(check(same).get("fencing").explanation()).contains("token 10 was assigned to both p0 and p1");
  }

  @Test
  void aPartitionWithoutAnOwnerOnceMembershipIsQuietIsInvalid() {
    CheckOutcome o = check(variant("[1 \"p1\" 12]]", "[1 nil nil]]")).get("settled");
    assertThat(o.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(o.explanation()).startsWith("partition 1 had no owner");
  }

  @Test
  void anOwnerThatDoesNotBelieveItOwnsThePartitionIsInvalid() {
    CheckOutcome o = check(variant("[1 \"p1\" 12]]", "[1 \"p2\" 30]]")).get("settled");
    assertThat(o.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(o.explanation()).startsWith("p2 owned partition 1 with token 30 but did not believe it");
    CheckOutcome late = check(variant("[15 1600000000]", "[1200000000 1600000000]")).get("settled");
    assertThat(late.verdict()).as("believed only after the bound").isEqualTo(Verdict.INVALID);
  }

  @Test
  void withoutAQuietPhaseOrAStatusReadAfterTheBoundTheLivenessCheckIsUnknown() {
    String early = variant(":time 1500000000}", ":time 900000000}");
    assertThat(check(early).get("settled").verdict()).isEqualTo(Verdict.UNKNOWN);
    String noQuiet = VALID.replaceAll("(?m)^.*:f :quiet.*$\\n", "");
    assertThat(noQuiet).doesNotContain(":quiet");
    assertThat(check(noQuiet).get("settled").verdict()).isEqualTo(Verdict.UNKNOWN);
    assertThat(check(noQuiet).get("settled").explanation()).contains("never reached a quiet membership phase");
  }

  @Test
  void aHistoryWithoutBeliefsIsNeverValid() {
    String none = VALID.replaceAll("(?m)^.*:f :own.*$\\n", "");
    Map<String, CheckOutcome> out = check(none);
    assertThat(out.get("exclusivity").verdict()).isEqualTo(Verdict.UNKNOWN);
    assertThat(out.get("fencing").verdict()).isEqualTo(Verdict.UNKNOWN);
  }
}
