package io.regent.jepsen.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.jepsen.checker.RetryChecker.Belief;
import io.regent.jepsen.checker.RetryChecker.Read;
import io.regent.jepsen.checker.RetryChecker.Renewal;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The retry workload's checker on synthetic histories: each violation it names is found, and nothing else. */
class RetryCheckerTest {
  private static final long MS = 1_000_000L;
  private static final long TTL = 3_000;
  private static final long SLACK = 1_000 * MS;

  @Test
  void aBeliefTheReadsAgreeWithIsValid() {
    RetryChecker.Report r = RetryChecker.check(List.of(new Belief("r0", "p1", 7, 100 * MS, 900 * MS)),
        List.of(new Read("r0", 50 * MS, 60 * MS, null), new Read("r0", 200 * MS, 210 * MS, 7L),
            new Read("r0", 890 * MS, 950 * MS, null)),
        List.of(new Renewal(7, 90 * MS, 950 * MS, TTL, 0)), TTL, 0, SLACK);
    assertThat(r.verdict()).as(r.explanation()).isEqualTo(Verdict.VALID);
    assertThat(r.orphans()).isEmpty();
  }

  @Test
  void aBeliefWhileTheClusterGivesTheNameToAnotherLeaseIsInvalid() {
    // the stranded campaign's cleanup: p1 was told "elected" with lease 7, the cluster then gave r0 to lease 9
    RetryChecker.Report r = RetryChecker.check(List.of(new Belief("r0", "p1", 7, 100 * MS, 5_000 * MS)),
        List.of(new Read("r0", 200 * MS, 210 * MS, 7L), new Read("r0", 2_000 * MS, 2_010 * MS, 9L)),
        List.of(new Renewal(7, 90 * MS, 5_000 * MS, TTL, 0), new Renewal(9, 1_000 * MS, 3_000 * MS, TTL, 0)),
        TTL, 0, SLACK);
    assertThat(r.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(r.violations()).singleElement().asString().contains("p1", "lease 7", "lease 9");
  }

  @Test
  void aBeliefWhileTheClusterGivesTheNameToNobodyIsInvalid() {
    RetryChecker.Report r = RetryChecker.check(List.of(new Belief("r0", "p1", 7, 100 * MS, 5_000 * MS)),
        List.of(new Read("r0", 2_000 * MS, 2_010 * MS, null)), List.of(new Renewal(7, 0, 5_000 * MS, TTL, 0)),
        TTL, 0, SLACK);
    assertThat(r.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(r.violations()).singleElement().asString().contains("nobody");
  }

  @Test
  void aReadOverlappingTheBeliefsEdgesIsNotEvidence() {
    // the read may have taken effect before the election or after the resign was sent
    RetryChecker.Report r = RetryChecker.check(List.of(new Belief("r0", "p1", 7, 100 * MS, 900 * MS)),
        List.of(new Read("r0", 50 * MS, 150 * MS, null), new Read("r0", 850 * MS, 950 * MS, 9L)),
        List.of(new Renewal(7, 0, 900 * MS, TTL, 0), new Renewal(9, 0, 2_000 * MS, TTL, 0)), TTL, 0, SLACK);
    assertThat(r.verdict()).as(r.explanation()).isEqualTo(Verdict.VALID);
  }

  @Test
  void aLeaseHoldingANameUnrenewedPastItsTtlAndLockDelayIsInvalid() {
    // lease 7's client stopped renewing at 1 s; the name is still held by it 1 + 3 + 0.5 + 1 s later and more
    List<Read> reads = List.of(new Read("r0", 500 * MS, 510 * MS, 7L), new Read("r0", 4_000 * MS, 4_010 * MS, 7L),
        new Read("r0", 6_000 * MS, 6_010 * MS, 7L));
    RetryChecker.Report r = RetryChecker.check(List.of(new Belief("r0", "p1", 7, 100 * MS, 900 * MS)), reads,
        List.of(new Renewal(7, 0, 1_000 * MS, TTL, 500)), TTL, 500, SLACK);
    assertThat(r.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(r.violations()).singleElement().asString().contains("lease 7", "stopped renewing");
  }

  @Test
  void anOrphanLeaseIsCountedAndFlaggedOnlyWhenItOutlivesItsTtl() {
    List<Belief> beliefs = List.of(new Belief("r1", "p2", 3, 0, 100 * MS));
    List<Renewal> renewals = List.of(new Renewal(3, 0, 100 * MS, TTL, 0));
    RetryChecker.Report expiring = RetryChecker.check(beliefs, List.of(new Read("r0", 500 * MS, 510 * MS, 8L),
        new Read("r0", 3_000 * MS, 3_010 * MS, 8L)), renewals, TTL, 0, SLACK);
    assertThat(expiring.verdict()).as(expiring.explanation()).isEqualTo(Verdict.VALID);
    assertThat(expiring.orphans()).containsExactly(8L);
    RetryChecker.Report forever = RetryChecker.check(beliefs, List.of(new Read("r0", 500 * MS, 510 * MS, 8L),
        new Read("r0", 9_000 * MS, 9_010 * MS, 8L)), renewals, TTL, 0, SLACK);
    assertThat(forever.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(forever.violations()).singleElement().asString().contains("no client knew it");
  }

  @Test
  void nothingToCompareIsUnknownNeverValid() {
    assertThat(RetryChecker.check(List.of(), List.of(new Read("r0", 0, 1, null)), List.of(), TTL, 0, SLACK)
        .verdict()).isEqualTo(Verdict.UNKNOWN);
    assertThat(RetryChecker.check(List.of(new Belief("r0", "p1", 7, 0, 10)), List.of(), List.of(), TTL, 0, SLACK)
        .verdict()).isEqualTo(Verdict.UNKNOWN);
  }
}
