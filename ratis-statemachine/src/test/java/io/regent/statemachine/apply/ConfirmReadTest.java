package io.regent.statemachine.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.statemachine.limits.Limits;
import io.regent.statemachine.proto.Confirm;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.LeaseStatus;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.NameHolder;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.support.Entries;
import io.regent.statemachine.support.Replica;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Confirm's read ({@link ConfirmRead}) is what apply answers for a Confirm entry: read from a read transaction
 * at the applied index N, as the leader's local answer reads it, it gives the bytes the entry applied at N + 1
 * gives (but the index), and the same live leases, which apply hands the lease clock after clearing the
 * checkpoints of the long ones it renews.
 */
class ConfirmReadTest {
  static final long MISSING = 999;

  @TempDir
  Path dir;
  Replica r;
  long shortLease;
  long longLease;
  Confirm confirm;

  @BeforeEach
  void setUp() {
    r = Replica.open(dir);
    shortLease = r.apply(Entries.grant(2_000)).result().getLeaseId();
    longLease = r.apply(Entries.grant(Limits.CHECKPOINT_MIN_TTL_MS)).result().getLeaseId();
    r.apply(Entries.checkpoint(Replica.TERM, longLease, 3_000, 0));
    r.apply(Entries.campaign("held", shortLease, "v"));
    // every kind of item, repeated ones, a lease in both lists, a missing lease and a malformed name
    confirm = Confirm.newBuilder().addRenewLeaseIds(shortLease).addRenewLeaseIds(longLease)
        .addRenewLeaseIds(MISSING).addRenewLeaseIds(longLease)
        .addQueryLeaseIds(shortLease).addQueryLeaseIds(longLease).addQueryLeaseIds(MISSING + 1)
        .addQueryNames("held").addQueryNames("free").addQueryNames("").build();
  }

  @AfterEach
  void tearDown() {
    r.close();
  }

  @Test
  void theReadAtTheAppliedIndexAnswersAsTheAppliedEntry() {
    long applied = r.appliedIndex();
    ConfirmRead.Answer local = r.read(txn -> ConfirmRead.read(txn, confirm, txn.appliedIndex(), Replica.TERM));
    ApplyOutcome entry = r.apply(Entries.logged(LogEntry.newBuilder().setConfirm(confirm)));

    assertThat(local.result().getIndex()).isEqualTo(applied);
    assertThat(entry.result().toByteArray()).as("the same bytes but the index")
        .isEqualTo(local.result().toBuilder().setIndex(applied + 1).build().toByteArray());
    assertThat(ids(entry.renewed())).isEqualTo(ids(local.renewed()))
        .containsExactly(shortLease, longLease, longLease);
    assertThat(ids(entry.queried())).isEqualTo(ids(local.queried())).containsExactly(shortLease, longLease);
    LeaseRecord cleared = local.renewed().get(1).toBuilder().setCheckpointRemainingMs(0)
        .setRenewedIndex(applied + 1).build();
    assertThat(entry.renewed()).as("apply cleared the long lease's checkpoint first")
        .containsExactly(local.renewed().get(0), cleared, cleared);
    assertThat(entry.queried()).containsExactly(local.queried().get(0), cleared);
  }

  /** The answer's bytes, spelt out: each lease asked, once per occurrence, unmeasured; each well-formed name. */
  @Test
  void theAnswerHasOneStatusPerLeaseAskedAndOneHolderPerName() {
    ConfirmRead.Answer local = r.read(txn -> ConfirmRead.read(txn, confirm, txn.appliedIndex(), Replica.TERM));
    Result expected = Result.newBuilder().setIndex(r.appliedIndex()).setTerm(Replica.TERM)
        .addLeases(live(shortLease, 2_000)).addLeases(live(longLease, Limits.CHECKPOINT_MIN_TTL_MS))
        .addLeases(gone(MISSING)).addLeases(live(longLease, Limits.CHECKPOINT_MIN_TTL_MS))
        .addLeases(live(shortLease, 2_000)).addLeases(live(longLease, Limits.CHECKPOINT_MIN_TTL_MS))
        .addLeases(gone(MISSING + 1))
        .addNames(NameHolder.newBuilder().setName("held").setHolder(r.name("held").getHolder()))
        .addNames(NameHolder.newBuilder().setName("free"))
        .build();
    assertThat(local.result().toByteArray()).isEqualTo(expected.toByteArray());
    assertThat(local.renewed()).containsExactly(r.lease(shortLease), r.lease(longLease), r.lease(longLease));
    assertThat(local.queried()).containsExactly(r.lease(shortLease), r.lease(longLease));
  }

  private static LeaseStatus live(long id, long ttlMs) {
    return LeaseStatus.newBuilder().setId(id).setAlive(true).setTtlMs(ttlMs).setRemainingMs(-1).build();
  }

  private static LeaseStatus gone(long id) {
    return LeaseStatus.newBuilder().setId(id).setAlive(false).setTtlMs(0).setRemainingMs(-1).build();
  }

  private static List<Long> ids(List<LeaseRecord> leases) {
    return leases.stream().map(LeaseRecord::getId).toList();
  }
}
