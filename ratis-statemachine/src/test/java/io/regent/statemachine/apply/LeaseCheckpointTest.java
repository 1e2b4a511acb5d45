package io.regent.statemachine.apply;

import io.regent.statemachine.limits.Limits;
import static org.assertj.core.api.Assertions.assertThat;

import io.regent.statemachine.proto.Code;
import io.regent.statemachine.support.Entries;
import io.regent.statemachine.support.Replica;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lease checkpoints at apply (docs/architecture.md §3.8): a checkpoint records a long lease's
 * remaining time for the next leader; a Confirm renewing the lease clears it, and a checkpoint measured
 * before a renewal that applied first changes nothing, so no successor resumes from a time the client's
 * acknowledged keepalive has replaced.
 */
class LeaseCheckpointTest {
  @TempDir
  Path dir;
  Replica r;
  long lease;

  @BeforeEach
  void setUp() {
    r = Replica.open(dir);
    lease = r.apply(Entries.grant(Limits.CHECKPOINT_MIN_TTL_MS)).result().getLeaseId();
  }

  @AfterEach
  void tearDown() {
    r.close();
  }

  @Test
  void aCheckpointRecordsTheRemainingTime() {
    r.apply(Entries.checkpoint(Replica.TERM, lease, 3_000, 0));
    assertThat(r.lease(lease).getCheckpointRemainingMs()).isEqualTo(3_000);
  }

  @Test
  void aRenewalClearsTheCheckpointAndRecordsItsIndex() {
    r.apply(Entries.checkpoint(Replica.TERM, lease, 3_000, 0));
    long renewal = r.nextIndex();
    r.apply(Entries.confirm(lease));
    assertThat(r.lease(lease).getCheckpointRemainingMs()).isZero();
    assertThat(r.lease(lease).getRenewedIndex()).isEqualTo(renewal);
  }

  @Test
  void aCheckpointMeasuredBeforeARenewalThatAppliedFirstChangesNothing() {
    // The leader measured 3 s left, then a keepalive's Confirm was committed ahead of the checkpoint.
    long renewal = r.nextIndex();
    r.apply(Entries.confirm(lease));
    String renewed = r.tables();
    r.apply(Entries.checkpoint(Replica.TERM, lease, 3_000, 0));
    assertThat(r.tables()).as("the acknowledged renewal stands").isEqualTo(renewed);
    r.apply(Entries.checkpoint(Replica.TERM, lease, 4_000, renewal));
    assertThat(r.lease(lease).getCheckpointRemainingMs()).as("measured after it: recorded").isEqualTo(4_000);
  }

  @Test
  void aCheckpointOfAnotherTermOrOutOfRangeChangesNothing() {
    String before = r.tables();
    assertThat(r.apply(Entries.checkpoint(Replica.TERM + 1, lease, 3_000, 0)).result().getCode())
        .isEqualTo(Code.FAILED_PRECONDITION);
    r.apply(Entries.checkpoint(Replica.TERM, lease, 0, 0));
    r.apply(Entries.checkpoint(Replica.TERM, lease, Limits.CHECKPOINT_MIN_TTL_MS + 1, 0));
    r.apply(Entries.checkpoint(Replica.TERM, 999, 3_000, 0));
    assertThat(r.tables()).isEqualTo(before);
  }

  @Test
  void renewingAShortLeaseWritesNothing() {
    long shortLease = r.apply(Entries.grant(Limits.CHECKPOINT_MIN_TTL_MS - 1)).result().getLeaseId();
    String before = r.tables();
    r.apply(Entries.confirm(shortLease));
    assertThat(r.tables()).isEqualTo(before);
  }
}
