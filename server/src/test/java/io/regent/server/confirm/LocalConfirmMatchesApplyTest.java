package io.regent.server.confirm;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.regent.server.lease.FixedTimekeeper;
import io.regent.server.single.SingleWriterLog;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.limits.Limits;
import io.regent.statemachine.proto.Campaign;
import io.regent.statemachine.proto.Confirm;
import io.regent.statemachine.proto.Grant;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.replica.LeaseVerdict;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The answer under the leadership lease ({@link LocalConfirm}, no entry) is the answer of the Confirm entry
 * applied to the same state, measured by the same lease clock: byte for byte, but the index (the applied index
 * against the entry's own).
 */
class LocalConfirmMatchesApplyTest {
  @TempDir
  Path dir;
  SingleWriterLog log;
  LocalConfirm local;
  long shortLease;
  long longLease;

  @BeforeEach
  void setUp() {
    FixedTimekeeper clock = new FixedTimekeeper(() -> LeaseVerdict.measured(1_234), () -> false);
    log = new SingleWriterLog(dir, clock, new EventHub(100));
    local = new LocalConfirm(log, clock, () -> log.appliedIndex());
    shortLease = grant(2_000);
    longLease = grant(Limits.CHECKPOINT_MIN_TTL_MS);
    log.propose(LogEntry.newBuilder().setCampaign(Campaign.newBuilder().setName("held").setLeaseId(shortLease)
        .setValue(ByteString.copyFromUtf8("v")))).join();
  }

  @AfterEach
  void tearDown() {
    log.close();
  }

  @Test
  void theLocalAnswerIsTheAppliedAnswerButTheIndex() {
    Confirm.Builder confirm = Confirm.newBuilder().addRenewLeaseIds(shortLease).addRenewLeaseIds(longLease)
        .addRenewLeaseIds(999).addQueryLeaseIds(longLease).addQueryLeaseIds(998)
        .addQueryNames("held").addQueryNames("free");
    long applied = log.appliedIndex();
    Confirmation answered = local.confirm(SingleWriterLog.TERM, confirm);
    Result entry = log.propose(LogEntry.newBuilder().setConfirm(confirm)).join();

    assertThat(answered).isNotNull();
    assertThat(answered.result().getIndex()).isEqualTo(applied);
    assertThat(entry.getIndex()).isEqualTo(applied + 1);
    assertThat(answered.result().toBuilder().setIndex(entry.getIndex()).build().toByteArray())
        .isEqualTo(entry.toByteArray());
    assertThat(answered.leases().get(longLease).getRemainingMs()).as("measured by the lease clock").isEqualTo(1_234);
  }

  private long grant(long ttlMs) {
    return log.propose(LogEntry.newBuilder().setGrant(Grant.newBuilder().setTtlMs(ttlMs))).join().getLeaseId();
  }
}
