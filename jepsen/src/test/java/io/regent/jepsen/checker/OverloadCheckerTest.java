package io.regent.jepsen.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.jepsen.history.History;
import io.regent.jepsen.history.Keyword;
import io.regent.jepsen.history.Op;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OverloadCheckerTest {
  static final long S = 1_000_000_000L;
  static final long TTL = 3 * S;
  static final String NOT_FOUND = "NOT_FOUND: lease 10 not found";
  static final String EXHAUSTED = "RESOURCE_EXHAUSTED: this node has 32 bulk calls in progress";

  private static Op failed(long p, String f, String error) {
    return new Op(p, Op.Type.FAIL, Keyword.of(f), null, null, null, Map.of(Keyword.of("error"), error));
  }

  private final List<Op> ops = new ArrayList<>();

  private void grant(long p, long lease, long at) {
    ops.add(Op.invoke(p, "grant", null).withTime(at));
    ops.add(Op.ok(p, "grant", lease).withTime(at + 1));
  }

  private void keepalive(long p, long lease, long at, Op completion) {
    ops.add(Op.invoke(p, "keepalive", null).withKey(lease).withTime(at));
    ops.add(completion.withKey(lease).withTime(at + 10_000_000));
  }

  private void renewed(long p, long lease, long at) {
    keepalive(p, lease, at, Op.ok(p, "keepalive", 3000L));
  }

  private void flood(long p, String f, long at, boolean refused) {
    ops.add(Op.invoke(p, f, null).withKey("f1").withTime(at));
    ops.add((refused ? failed(p, f, EXHAUSTED) : Op.ok(p, f, null)).withKey("f1").withTime(at + 1));
  }

  @Test
  void leasesRenewedInTimeThatSurviveAreValidAndRefusalsOfTheFloodAreCountedNotFailed() {
    grant(1, 10, 0);
    renewed(1, 10, S);
    renewed(1, 10, 2 * S);
    renewed(1, 10, 3 * S);
    flood(2, "read", S, true);
    flood(2, "campaign", 2 * S, true);
    flood(2, "read", 3 * S, false);

    OverloadChecker.Outcome o = OverloadChecker.check(new History(ops), TTL);

    assertThat(o.verdict()).as(o.explanation()).isEqualTo(Verdict.VALID);
    assertThat(o.spurious()).isZero();
    assertThat(o.renewals()).isEqualTo(3);
    assertThat(o.floodOps()).isEqualTo(3);
    assertThat(o.floodRefusals()).isEqualTo(2);
  }

  @Test
  void aLeaseRenewedInTimeYetReportedGoneIsASpuriousExpiry() {
    grant(1, 10, 0);
    renewed(1, 10, S);
    keepalive(1, 10, 2 * S, failed(1, "keepalive", EXHAUSTED)); // shed: sent in time all the same
    ops.add(Op.invoke(1, "keepalive", null).withKey(10L).withTime(3 * S));
    ops.add(Op.info(1, "keepalive", null).withKey(10L).withTime(4 * S)); // deadline; the process retires
    keepalive(3, 10, 4 * S, failed(3, "keepalive", NOT_FOUND));

    OverloadChecker.Outcome o = OverloadChecker.check(new History(ops), TTL);

    assertThat(o.verdict()).as(o.explanation()).isEqualTo(Verdict.INVALID);
    assertThat(o.spurious()).isEqualTo(1);
    assertThat(o.firstSpurious()).isEqualTo(10);
    assertThat(o.keepaliveRefusals()).isEqualTo(1);
  }

  @Test
  void aLeaseItsHolderStoppedRenewingForATtlMayExpire() {
    grant(1, 10, 0);
    renewed(1, 10, S);
    keepalive(1, 10, S + TTL, failed(1, "keepalive", NOT_FOUND)); // a whole TTL after the last send

    OverloadChecker.Outcome o = OverloadChecker.check(new History(ops), TTL);

    assertThat(o.verdict()).as(o.explanation()).isEqualTo(Verdict.VALID);
    assertThat(o.expired()).isEqualTo(1);
    assertThat(o.spurious()).isZero();
  }

  @Test
  void aRunWithoutAnAcknowledgedKeepaliveProvesNothing() {
    grant(1, 10, 0);
    keepalive(1, 10, S, failed(1, "keepalive", EXHAUSTED));

    assertThat(OverloadChecker.check(new History(ops), TTL).verdict()).isEqualTo(Verdict.UNKNOWN);
  }
}
