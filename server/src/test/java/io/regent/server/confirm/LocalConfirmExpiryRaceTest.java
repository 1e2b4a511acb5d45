package io.regent.server.confirm;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.server.lease.Lessor;
import io.regent.server.single.SingleWriterLog;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.Confirm;
import io.regent.statemachine.proto.Expire;
import io.regent.statemachine.proto.Grant;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.replica.LeaseTimekeeper;
import io.regent.statemachine.replica.LeaseVerdict;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A keepalive answered under the leadership lease reads its lease from the leader's state at index N while the
 * apply thread commits the lease's Expire at N+1 and tells the lease clock. The ordering is injected: the
 * Expire is applied after the local answer's read and before the lease clock is asked to renew. The answer
 * must not be "renewed" (the lease's names have passed to their next candidates), but a Confirm round, which
 * finds the lease gone (docs/architecture.md §3.1).
 */
class LocalConfirmExpiryRaceTest {
  static final long TTL_MS = 2_000;

  @TempDir
  Path dir;
  final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  Lessor lessor;
  SingleWriterLog log;
  LocalConfirm local;
  volatile boolean expireBeforeTheLeaseClockAnswers;
  long lease;

  @BeforeEach
  void setUp() {
    lessor = new Lessor(System::nanoTime, scheduler, TimeUnit.DAYS.toMillis(1), TimeUnit.DAYS.toMillis(1));
    log = new SingleWriterLog(dir, new ExpiringInBetween(), new EventHub(100));
    local = new LocalConfirm(log, new ExpiringInBetween(), () -> 0);
    lease = log.propose(LogEntry.newBuilder().setGrant(Grant.newBuilder().setTtlMs(TTL_MS))).join().getLeaseId();
  }

  @AfterEach
  void tearDown() {
    log.close();
    lessor.close();
    scheduler.shutdownNow();
  }

  @Test
  void aKeepaliveWhoseLeaseExpiresBetweenItsReadAndItsRenewalIsNotAnsweredLocally() {
    assertThat(local.confirm(SingleWriterLog.TERM, Confirm.newBuilder().addRenewLeaseIds(lease)))
        .as("control: a live lease is renewed locally").isNotNull();
    expireBeforeTheLeaseClockAnswers = true;
    Confirmation c = local.confirm(SingleWriterLog.TERM, Confirm.newBuilder().addRenewLeaseIds(lease));
    LeaseRecord after = log.read(txn -> txn.lease(lease));
    assertThat(after).as("the Expire applied").isNull();
    assertThat(c).as("no local renewal of a lease whose Expire applied: a Confirm round must answer").isNull();
  }

  /** The node's lease clock; the first renewal asked while the flag is set first has the lease expired. */
  private final class ExpiringInBetween implements LeaseTimekeeper {
    @Override
    public void onLeaderReady(long term, List<LeaseRecord> leases, List<NameRecord> lockDelayed) {
      lessor.onLeaderReady(term, leases, lockDelayed);
    }

    @Override
    public void onNotLeader(long term) {
      lessor.onNotLeader(term);
    }

    @Override
    public void onGranted(LeaseRecord granted) {
      lessor.onGranted(granted);
    }

    @Override
    public void onEnded(List<Long> leaseIds) {
      lessor.onEnded(leaseIds);
    }

    @Override
    public void onLockDelay(NameRecord name) {
      lessor.onLockDelay(name);
    }

    @Override
    public boolean checkpointed(long leaseId) {
      return lessor.checkpointed(leaseId);
    }

    @Override
    public List<LeaseVerdict> confirm(long term, List<LeaseRecord> renew, List<LeaseRecord> query) {
      if (expireBeforeTheLeaseClockAnswers) {
        expireBeforeTheLeaseClockAnswers = false;
        // the apply thread commits the Expire (and ends the lease in the lease clock) in between
        assertThat(log.propose(LogEntry.newBuilder().setExpire(Expire.newBuilder().addLeaseIds(lease)
            .setProposerTerm(SingleWriterLog.TERM))).join().getCode()).isEqualTo(Code.OK);
      }
      return lessor.confirm(term, renew, query);
    }
  }
}
