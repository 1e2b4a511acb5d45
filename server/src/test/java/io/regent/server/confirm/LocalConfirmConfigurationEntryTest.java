package io.regent.server.confirm;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.server.lease.FixedTimekeeper;
import io.regent.server.single.SingleWriterLog;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.Confirm;
import io.regent.statemachine.proto.Grant;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.replica.LeaseVerdict;
import io.regent.statemachine.replica.ReplicaView;
import io.regent.statemachine.store.StateTxn;
import java.nio.file.Path;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #22 item 7: LMDB's applied index counts only the entries the state machine applies, while the Raft
 * commit index also counts configuration entries (a new leader's startup entry, every membership change),
 * which Ratis applies without the state machine. When the last committed entry is one, LMDB's index never
 * reaches the commit index, and the leader, which compared the two, answered no Confirm locally until some
 * other write came: each keepalive and read after an election or a membership change took a log round. The
 * comparison is with the replica's applied index as Ratis counts it ({@link ReplicaView#appliedIndex()}).
 */
class LocalConfirmConfigurationEntryTest {
  @TempDir
  Path dir;
  SingleWriterLog log;
  FixedTimekeeper clock;
  long lease;

  @BeforeEach
  void setUp() {
    clock = new FixedTimekeeper(() -> LeaseVerdict.measured(1_234), () -> false);
    log = new SingleWriterLog(dir, clock, new EventHub(100));
    lease = log.propose(LogEntry.newBuilder().setGrant(Grant.newBuilder().setTtlMs(2_000))).join().getLeaseId();
  }

  @AfterEach
  void tearDown() {
    log.close();
  }

  @Test
  void aConfigurationEntryLastCommittedAndAppliedStillLetsTheLeaderAnswer() {
    long lmdb = log.appliedIndex();
    ReplicaView afterConfiguration = new AppliedAhead(log, lmdb + 1); // entry lmdb+1: a configuration entry
    LocalConfirm local = new LocalConfirm(afterConfiguration, clock, () -> lmdb + 1);

    Confirmation answered = local.confirm(SingleWriterLog.TERM, Confirm.newBuilder().addRenewLeaseIds(lease));

    assertThat(answered).as("answered locally once everything committed was applied, a configuration entry "
        + "included").isNotNull();
    assertThat(answered.result().getIndex()).as("the state's own index").isEqualTo(lmdb);
  }

  @Test
  void aCommittedEntryNotAppliedYetStillNeedsARound() {
    long lmdb = log.appliedIndex();
    LocalConfirm local = new LocalConfirm(new AppliedAhead(log, lmdb), clock, () -> lmdb + 1);

    assertThat(local.confirm(SingleWriterLog.TERM, Confirm.newBuilder().addRenewLeaseIds(lease))).isNull();
  }

  /** A replica whose Raft applied index is {@code applied}: LMDB's, plus configuration entries applied after. */
  private record AppliedAhead(ReplicaView state, long applied) implements ReplicaView {
    @Override
    public <T> T read(Function<StateTxn, T> body) {
      return state.read(body);
    }

    @Override
    public EventHub hub() {
      return state.hub();
    }

    @Override
    public long appliedIndex() {
      return applied;
    }
  }
}
