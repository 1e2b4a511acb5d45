package io.regent.statemachine.store;

import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.NameRecord;

/**
 * Read-only access to the lease and name tables: what a pure read of the state takes, so that the type says it
 * writes nothing. A {@link StateTxn} of a read or of a write transaction is one.
 */
public interface StateView {
  /** The lease with this id, or {@code null} when there is none. */
  LeaseRecord lease(long id);

  /** The record of this name, or {@code null} when it has no holder, no candidates and no lock-delay. */
  NameRecord name(String name);
}
