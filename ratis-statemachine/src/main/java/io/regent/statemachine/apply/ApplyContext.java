package io.regent.statemachine.apply;

import io.regent.statemachine.group.GroupApplier;
import io.regent.statemachine.store.StateTxn;

/**
 * The entry being applied, as every rule of apply sees it: the transaction it writes in, its place in the log,
 * and where its effects are recorded. Each operation of a batch entry gets its own, on a nested transaction.
 *
 * @param txn the apply's write transaction (the caller commits and records the applied index)
 * @param index the entry's log index: the token of every grant it makes and the id of a lease it grants
 *     (docs/architecture.md §2.2, §2.4)
 * @param term the entry's term, against which timer entries' proposer terms are checked
 * @param unsafeSkipRelease TESTS ONLY: ownership groups skip the release rule ({@link GroupApplier})
 * @param leaseIdBase what the ids of the leases this replica's cell grants start from (0 for cell 0; the
 *     server's {@code LeaseIds}, docs/architecture.md §14)
 * @param effects receives what the entry produced
 */
record ApplyContext(StateTxn txn, long index, long term, boolean unsafeSkipRelease, long leaseIdBase, Effects effects) {
  /** The ownership-group rules for this entry; a join with a TTL grants its lease by {@link LeaseRules#grantNow}. */
  GroupApplier groups() {
    return new GroupApplier(txn, index, effects.events(), new LeaseRules(this)::grantNow, unsafeSkipRelease);
  }
}
