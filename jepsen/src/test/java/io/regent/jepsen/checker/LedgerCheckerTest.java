package io.regent.jepsen.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.jepsen.checker.LedgerChecker.Entry;
import io.regent.jepsen.checker.LedgerChecker.Kind;
import io.regent.jepsen.checker.LedgerChecker.Report;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LedgerCheckerTest {
  static final Map<Long, String> GRANTS = Map.of(3L, "c1", 7L, "c2", 9L, "c1");

  @Test
  void wellFencedLedgerWithAllAcknowledgedAppendsIsValid() {
    List<Entry> ledger = List.of(new Entry(3, "c1", "a"), new Entry(3, "c1", "b"),
        new Entry(7, "c2", "c"), new Entry(9, "c1", "d"));
    Report r = LedgerChecker.check(ledger, GRANTS, List.of(ledger.get(0), ledger.get(2)));
    assertThat(r.verdict()).isEqualTo(Verdict.VALID);
    assertThat(r.anomalies()).isEmpty();
    assertThat(r.explanation()).contains("4 entries");
  }

  @Test
  void decreasingTokenIsInvalid() {
    Report r = LedgerChecker.check(
        List.of(new Entry(7, "c2", "c"), new Entry(3, "c1", "late write")), GRANTS, List.of());
    assertThat(r.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(r.anomalies()).extracting(LedgerChecker.Anomaly::kind)
        .containsExactly(Kind.TOKEN_DECREASED);
    assertThat(r.explanation()).contains("token 3 after token 7");
  }

  @Test
  void tokenUsedByAnotherWriterOrNeverGrantedIsInvalid() {
    Report r = LedgerChecker.check(
        List.of(new Entry(3, "c2", "x"), new Entry(5, "c1", "y")), GRANTS, List.of());
    assertThat(r.anomalies()).extracting(LedgerChecker.Anomaly::kind)
        .containsExactly(Kind.WRONG_WRITER, Kind.TOKEN_NOT_GRANTED);
    assertThat(r.explanation()).contains("granted to c1");
  }

  @Test
  void lostAcknowledgedAppendIsInvalid() {
    Entry kept = new Entry(3, "c1", "a");
    Entry lost = new Entry(7, "c2", "b");
    Report r = LedgerChecker.check(List.of(kept), GRANTS, List.of(kept, lost));
    assertThat(r.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(r.anomalies().get(0).kind()).isEqualTo(Kind.LOST_APPEND);
    assertThat(r.anomalies().get(0).entries()).containsExactly(lost);
  }
}
