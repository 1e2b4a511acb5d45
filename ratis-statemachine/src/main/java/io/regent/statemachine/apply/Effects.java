package io.regent.statemachine.apply;

import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.proto.Result;
import java.util.ArrayList;
import java.util.List;

/**
 * What the apply of one entry (or of one operation of a batch entry) has produced so far, in the order the
 * rules produced it: the one place the rules record their effects, frozen into an {@link ApplyOutcome} at the
 * end. Nothing here runs an effect: the node does that after the commit ({@code replica.ApplyEffects}).
 *
 * <p>Not thread-safe: one instance per apply, on the apply thread.
 */
final class Effects {
  private final List<ChangeEvent> events = new ArrayList<>();
  private final List<LeaseRecord> grants = new ArrayList<>();
  private final List<Long> ended = new ArrayList<>();
  private final List<LeaseRecord> renewed = new ArrayList<>();
  private final List<LeaseRecord> queried = new ArrayList<>();
  private final List<NameRecord> lockDelays = new ArrayList<>();

  /** Records an ownership, lease-end or group event. */
  void event(ChangeEvent e) {
    events.add(e);
  }

  /**
   * The events so far, live: {@link io.regent.statemachine.group.GroupApplier} appends its group events to
   * this list, and a batch reads an operation's events to judge the token rule.
   */
  List<ChangeEvent> events() {
    return events;
  }

  /** Records a lease this entry granted (stored with its id and TTL). */
  void granted(LeaseRecord lease) {
    grants.add(lease);
  }

  /** Records the id of a lease this entry ended (revoked or expired). */
  void ended(long leaseId) {
    ended.add(leaseId);
  }

  /** Records a name whose lock-delay this entry started, with its delay. */
  void lockDelayStarted(NameRecord name) {
    lockDelays.add(name);
  }

  /** Records what a Confirm entry read: the live leases it renews and those it asks about. */
  void confirmed(ConfirmRead.Answer read) {
    renewed.addAll(read.renewed());
    queried.addAll(read.queried());
  }

  /**
   * Appends what one operation of a batch entry produced, after the operation was kept. (A Confirm is never
   * part of a batch, {@link EntryCodec#batchable}, so an operation's renewed and queried leases are empty.)
   */
  void absorb(Effects op) {
    events.addAll(op.events);
    grants.addAll(op.grants);
    ended.addAll(op.ended);
    renewed.addAll(op.renewed);
    queried.addAll(op.queried);
    lockDelays.addAll(op.lockDelays);
  }

  /** This apply's outcome: {@code result} with an immutable copy of every effect recorded. */
  ApplyOutcome outcome(Result result) {
    return new ApplyOutcome(result, List.copyOf(events), List.copyOf(grants), List.copyOf(ended),
        List.copyOf(renewed), List.copyOf(queried), List.copyOf(lockDelays));
  }
}
