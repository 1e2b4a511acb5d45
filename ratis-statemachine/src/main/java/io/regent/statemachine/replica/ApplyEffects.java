package io.regent.statemachine.replica;

import io.regent.statemachine.apply.ApplyOutcome;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.LeaseStatus;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.replica.LeaseTimekeeper;
import java.util.List;

/**
 * What happens after an entry's state change is committed to LMDB: the leader's lease clock learns what
 * changed, a Confirm's lease statuses get the leader's measurements, and the events reach subscribers.
 * Shared by the Raft state machine and the single-writer node so both behave the same.
 */
public final class ApplyEffects {
  private final LeaseTimekeeper timekeeper;
  private final EventHub hub;

  /**
   * @param timekeeper the leader-side lease clock
   * @param hub receives every applied entry's events, in log order
   */
  public ApplyEffects(LeaseTimekeeper timekeeper, EventHub hub) {
    this.timekeeper = timekeeper;
    this.hub = hub;
  }

  /**
   * Runs the effects of the entry at {@code index} of {@code term}; {@code out} is {@code null} when the
   * entry was skipped (a replay of what LMDB already holds).
   *
   * @return the reply to the proposer
   */
  public Result apply(ApplyOutcome out, long index, long term) {
    if (out == null) {
      hub.publish(index, List.of());
      return Result.newBuilder().setIndex(index).build();
    }
    out.grants().forEach(timekeeper::onGranted);
    if (!out.ended().isEmpty()) {
      timekeeper.onEnded(out.ended());
    }
    out.lockDelays().forEach(timekeeper::onLockDelay);
    Result result = measured(timekeeper, out.result(), out.renewed(), out.queried(), term);
    hub.publish(index, out.events());
    return result;
  }

  /**
   * Fills in the measurements of {@code timekeeper} (the ready leader's) of the leases a Confirm of
   * {@code term} renewed or asked about: also used for a Confirm the leader answers under its leadership lease,
   * without a log entry.
   *
   * @param result the Confirm's reply, one status per lease asked ({@link io.regent.statemachine.apply.ConfirmRead})
   * @param renewed the live leases it renews, in request order
   * @param queried the live leases it asks about, in request order
   * @return {@code result} with every live lease's status measured
   */
  public static Result measured(LeaseTimekeeper timekeeper, Result result, List<LeaseRecord> renewed,
                                List<LeaseRecord> queried, long term) {
    if (renewed.isEmpty() && queried.isEmpty()) {
      return result;
    }
    List<LeaseVerdict> verdicts = timekeeper.confirm(term, renewed, queried);
    Result.Builder r = result.toBuilder();
    int next = 0;
    for (int i = 0; i < r.getLeasesCount(); i++) {
      LeaseStatus s = r.getLeases(i);
      if (s.getAlive()) {
        LeaseVerdict v = verdicts.get(next++);
        // LeaseStatus.remaining_ms < 0: not vouched for. Expiring: the leader already decided this lease
        // expires; never "renewed", and not "gone" until its Expire applies.
        r.setLeases(i, switch (v.kind()) {
          case MEASURED -> s.toBuilder().setRemainingMs(v.remainingMs()).build();
          case UNVOUCHED -> s.toBuilder().setRemainingMs(-1).build();
          case EXPIRING -> s.toBuilder().setExpiring(true).setRemainingMs(0).build();
        });
      }
    }
    return r.build();
  }
}
