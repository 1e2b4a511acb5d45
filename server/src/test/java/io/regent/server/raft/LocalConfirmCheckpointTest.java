package io.regent.server.raft;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.server.single.SingleWriterLog;
import io.regent.statemachine.apply.Limits;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.Confirm;
import io.regent.statemachine.proto.Grant;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.ratis.LeaseTimekeeper;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
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
  SingleWriterLog log;
  LocalConfirm local;
  long lease;

  @BeforeEach
  void setUp() {
    Clock clock = new Clock();
    log = new SingleWriterLog(dir, clock, new EventHub(100));
    local = new LocalConfirm(log, clock);
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

  /** Renews everything for a full TTL; says whether a lease is checkpointed as the test sets. */
  final class Clock implements LeaseTimekeeper {
    @Override
    public void onLeaderReady(long term, List<LeaseRecord> leases, List<NameRecord> lockDelayed) {
    }

    @Override
    public void onNotLeader(long term) {
    }

    @Override
    public void onGranted(LeaseRecord granted) {
    }

    @Override
    public void onEnded(List<Long> leaseIds) {
    }

    @Override
    public void onLockDelay(NameRecord name) {
    }

    @Override
    public long[] confirm(long term, List<LeaseRecord> renew, List<LeaseRecord> query) {
      long[] out = new long[renew.size() + query.size()];
      Arrays.fill(out, Limits.CHECKPOINT_MIN_TTL_MS);
      return out;
    }

    @Override
    public boolean checkpointed(long leaseId) {
      return checkpointed;
    }
  }
}
