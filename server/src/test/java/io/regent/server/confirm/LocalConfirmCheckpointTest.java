package io.regent.server.confirm;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.server.lease.FixedTimekeeper;
import io.regent.server.single.SingleWriterLog;
import io.regent.statemachine.limits.Limits;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.Confirm;
import io.regent.statemachine.proto.Grant;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.replica.LeaseVerdict;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under the leadership lease a keepalive is answered without an entry, but the renewal of a checkpointed
 * lease must be a committed entry that clears the checkpoint (docs/architecture.md §3.8).
 */
class LocalConfirmCheckpointTest {
  @TempDir
  Path dir;
  volatile boolean checkpointed;
  /** The Raft commit index LocalConfirm sees; by default what the log has applied. */
  volatile long commitIndex = -1;
  SingleWriterLog log;
  LocalConfirm local;
  long lease;

  @BeforeEach
  void setUp() {
    // renews everything for a full TTL; a lease is checkpointed as the test sets
    FixedTimekeeper clock = new FixedTimekeeper(() -> LeaseVerdict.measured(Limits.CHECKPOINT_MIN_TTL_MS), () -> checkpointed);
    log = new SingleWriterLog(dir, clock, new EventHub(100));
    local = new LocalConfirm(log, clock, () -> commitIndex < 0 ? log.read(txn -> txn.appliedIndex()) : commitIndex);
    lease = log.propose(LogEntry.newBuilder().setGrant(Grant.newBuilder().setTtlMs(Limits.CHECKPOINT_MIN_TTL_MS)))
        .join().getLeaseId();
  }

  @AfterEach
  void tearDown() {
    log.close();
  }

  @Test
  void aCheckpointedLeaseIsRenewedOnlyThroughAConfirmRound() {
    checkpointed = true;
    assertThat(local.confirm(SingleWriterLog.TERM, Confirm.newBuilder().addRenewLeaseIds(lease))).isNull();
  }

  @Test
  void anUncheckpointedLongLeaseIsRenewedLocallyAndNothingIsWritten() {
    LeaseRecord before = log.read(txn -> txn.lease(lease));
    Confirmation c = local.confirm(SingleWriterLog.TERM, Confirm.newBuilder().addRenewLeaseIds(lease));
    assertThat(c).isNotNull();
    assertThat(c.leases().get(lease).getRemainingMs()).isEqualTo(Limits.CHECKPOINT_MIN_TTL_MS);
    LeaseRecord after = log.read(txn -> txn.lease(lease));
    assertThat(after).as("a read transaction: nothing written").isEqualTo(before);
  }

  @Test
  void noLocalAnswerUntilTheLeaderHasAppliedWhatItCommitted() {
    long applied = log.read(txn -> txn.appliedIndex());
    commitIndex = applied + 1; // committed, and perhaps acknowledged by a follower, but not applied here yet
    assertThat(local.confirm(SingleWriterLog.TERM, Confirm.newBuilder().addRenewLeaseIds(lease))).isNull();
    commitIndex = applied;
    assertThat(local.confirm(SingleWriterLog.TERM, Confirm.newBuilder().addRenewLeaseIds(lease))).isNotNull();
  }
}
