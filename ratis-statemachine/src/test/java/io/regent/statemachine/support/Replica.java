package io.regent.statemachine.support;

import io.regent.statemachine.apply.Applier;
import io.regent.statemachine.apply.ApplyOutcome;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.replica.ApplyStep;
import io.regent.statemachine.store.RegentStore;
import io.regent.statemachine.store.StateTxn;
import java.nio.file.Path;
import java.util.List;

/**
 * One replica's LMDB state driven the way {@code RegentStateMachine.applyTransaction} drives it, through
 * {@link ApplyStep}: each entry in its own write transaction, skipped when its index is at or below the stored
 * applied index, otherwise applied and recorded as the applied index in the same transaction.
 */
public final class Replica implements AutoCloseable {
  /** The Raft term {@link #apply} uses. */
  public static final long TERM = 1;

  private final RegentStore store;
  private long nextIndex;

  private Replica(RegentStore store) {
    this.store = store;
    this.nextIndex = store.read(StateTxn::appliedIndex) + 1;
  }

  public static Replica open(Path dir) {
    return new Replica(RegentStore.open(dir));
  }

  /** A replica whose environment is replaced by a {@link #snapshotTo} copy. */
  public static Replica restore(Path dir, Path snapshotFile) {
    return new Replica(RegentStore.restore(dir, snapshotFile));
  }

  /** Applies {@code entry} in term {@link #TERM} at the index after the last one this replica saw. */
  public ApplyOutcome apply(LogEntry entry) {
    return applyAt(nextIndex, TERM, entry);
  }

  /** Applies {@code entry} found at (index, term) as the adapter does; {@code null} when skipped (replay). */
  public ApplyOutcome applyAt(long index, long term, LogEntry entry) {
    ApplyOutcome out = ApplyStep.commit(store, entry, index, term, false, 0);
    nextIndex = Math.max(nextIndex, index + 1);
    return out;
  }

  /**
   * Runs {@code body} as the apply of the next index (given to it), in its own write transaction that also
   * records that index as applied: for appliers driven directly, with settings {@link Applier} does not pass.
   */
  public <T> T applyNext(java.util.function.BiFunction<StateTxn, Long, T> body) {
    long index = nextIndex++;
    return store.write(txn -> {
      T out = body.apply(txn, index);
      txn.setAppliedIndex(index);
      return out;
    });
  }

  /** Grants a 10 s lease at the next index and returns its id. */
  public long grantLease() {
    return apply(Entries.grant(10_000)).result().getLeaseId();
  }

  /** The index the next {@link #apply} uses. */
  public long nextIndex() {
    return nextIndex;
  }

  public long appliedIndex() {
    return store.read(StateTxn::appliedIndex);
  }

  /** The lease with this id, or {@code null}. */
  public LeaseRecord lease(long id) {
    return store.read(txn -> txn.lease(id));
  }

  public List<LeaseRecord> leases() {
    return store.read(StateTxn::allLeases);
  }

  public List<NameRecord> names() {
    return store.read(StateTxn::allNames);
  }

  /** The record of this name, or {@code null} when it has no holder and no candidates. */
  public NameRecord name(String name) {
    return store.read(txn -> txn.name(name));
  }

  /** Runs {@code body} in a read transaction of this replica. */
  public <T> T read(java.util.function.Function<StateTxn, T> body) {
    return store.read(body);
  }

  /** The canonical dump of the whole state. */
  public String dump() {
    return store.read(StateDump::of);
  }

  /** SHA-256 over every table's keys and values (see {@link StateTxn#contentDigest()}). */
  public String digest() {
    return store.read(StateTxn::contentDigest);
  }

  /** The canonical dump of the lease and name tables (without the applied index). */
  public String tables() {
    return store.read(StateDump::tables);
  }

  public void snapshotTo(Path file) {
    store.copyTo(file);
  }

  @Override
  public void close() {
    store.close();
  }
}
