package io.regent.statemachine.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.statemachine.proto.Campaign;
import io.regent.statemachine.proto.Grant;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.MemberTiming;
import io.regent.statemachine.support.Entries;
import io.regent.statemachine.support.Replica;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which entries a proposer may send twice ({@link Repeats#harmless}), and that their second copy changes nothing. */
class RepeatsTest {
  @TempDir
  Path dir;

  @Test
  void requestIdsAttemptsAndGuardedTimersAreHarmlessToRepeat() {
    LogEntry grant = Entries.logged(LogEntry.newBuilder().setRequestId("g-1").setGrant(Grant.newBuilder()
        .setTtlMs(10_000)));
    LogEntry attempt = Entries.logged(LogEntry.newBuilder().setCampaign(Campaign.newBuilder().setName("x")
        .setLeaseId(5).setAttempt("0000000000a1-01")));
    assertThat(Repeats.harmless(grant)).isTrue();
    assertThat(Repeats.harmless(attempt)).isTrue();
    assertThat(Repeats.harmless(Entries.batch(grant, attempt))).isTrue();
    assertThat(Repeats.harmless(Entries.expire(2, 5))).isTrue();
    assertThat(Repeats.harmless(Entries.endLockDelay("x", 2, 9))).isTrue();
    assertThat(Repeats.harmless(Entries.confirmNames("x"))).isTrue();
  }

  @Test
  void whatALaterCopyWouldChangeIsNot() {
    assertThat(Repeats.harmless(Entries.grant(10_000))).as("no request id").isFalse();
    assertThat(Repeats.harmless(Entries.checkpoint(2, 5, 9_000, 4))).as("an older remaining TTL").isFalse();
    assertThat(Repeats.harmless(Entries.confirm(5))).as("a later renewal").isFalse();
    assertThat(Repeats.harmless(Entries.logged(LogEntry.newBuilder().setMemberTiming(MemberTiming.newBuilder()
        .setMemberId("n1"))))).as("an older member record").isFalse();
    LogEntry attemptAt3 = EntryCodec.decode(EntryCodec.encode(LogEntry.newBuilder().setCampaign(Campaign
        .newBuilder().setName("x").setLeaseId(5).setAttempt("0000000000a1-01")), EntryCodec.REQUEST_ID_VERSION));
    assertThat(Repeats.harmless(attemptAt3)).as("version 3 applies every copy").isFalse();
    assertThat(Repeats.harmless(Entries.batch(Entries.grant(10_000), attemptAt3))).isFalse();
  }

  @Test
  void aSecondCopyOfAHarmlessEntryChangesNothingWhateverCameBetween() {
    try (Replica r = Replica.open(dir)) {
      LogEntry grant = Entries.logged(LogEntry.newBuilder().setRequestId("g-1").setGrant(Grant.newBuilder()
          .setTtlMs(10_000)));
      long lease = r.apply(grant).result().getLeaseId();
      r.apply(Entries.revoke(lease));
      String before = r.tables();
      r.apply(grant);
      r.apply(Entries.expire(Replica.TERM, lease));
      assertThat(r.tables()).isEqualTo(before);
    }
  }
}
