package io.regent.statemachine.event;

import io.regent.statemachine.proto.Holder;

/**
 * One change produced by applying a log entry, delivered on every replica in log order.
 *
 * @param kind what happened
 * @param name the election or lock name (the group for {@link Kind#GROUP_CHANGED}); empty for
 *     {@link Kind#LEASE_ENDED}
 * @param holder the name's holder after the change, or {@code null} when it became free
 * @param index log index of the entry that made the change
 * @param leaseId the lease concerned (the new holder's, the freed holder's, or the ended lease)
 * @param ordinal for an ownership change, its position among the ownership changes of {@code name} in the entry
 *     at {@code index}: 1, 2, ... — the same on every replica, since every replica applies the same entry; the
 *     {@link EventHub} numbers the events it publishes, and 0 means not numbered (as apply builds them). An entry
 *     can change one name more than once (a resign that hands it on; the operations of a batch entry), so
 *     (index, ordinal) is where an Observe stream resumes (docs/architecture.md §4.3)
 */
public record ChangeEvent(Kind kind, String name, Holder holder, long index, long leaseId, int ordinal) {

  /** An event not numbered yet (ordinal 0): how apply builds them. */
  public ChangeEvent(Kind kind, String name, Holder holder, long index, long leaseId) {
    this(kind, name, holder, index, leaseId, 0);
  }

  /** This event with {@code ordinal} (see the record's parameters). */
  public ChangeEvent numbered(int ordinal) {
    return new ChangeEvent(kind, name, holder, index, leaseId, ordinal);
  }

  /** Kinds of change. Ownership kinds mirror the public Observe stream (docs/architecture.md §4.3). */
  public enum Kind {
    /** A lease took a free name. */
    ELECTED,
    /** The holder replaced its value. */
    PROCLAIMED,
    /** The holder gave the name up. */
    RESIGNED,
    /** The holder's lease expired. */
    EXPIRED,
    /** The holder's lease was revoked. */
    REVOKED,
    /** The holder received a new token (FreshToken); the holder's lease and value are unchanged. */
    TOKEN_REFRESHED,
    /** A lease ended (expired or revoked); not an ownership change, used by waiting campaigns. */
    LEASE_ENDED,
    /** An ownership group's members or assignment changed; {@code name} is the group (docs/ownership.md). */
    GROUP_CHANGED,
    /**
     * The entry changed etcd's keyspace: its watch events are in the KV history under {@code index}
     * (docs/migrating.md "etcd's Watch"); {@code name} is empty. Published once or more per such entry.
     */
    KV_CHANGED;

    /** Whether Observe streams carry this kind. */
    public boolean isOwnershipChange() {
      return this != LEASE_ENDED && this != GROUP_CHANGED && this != KV_CHANGED;
    }
  }
}
