package io.regent.statemachine.apply;

import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.proto.Result;
import java.util.List;

/**
 * What applying one entry (or all the operations of a batch entry) produced: the reply, the change events, and
 * the lease-time effects that the ready leader's clock must observe; collected during the apply by
 * {@link Effects}. Only {@code result} depends on nothing but replicated state; the adapter completes the lease
 * statuses of a Confirm with the leader's measurements.
 *
 * @param result reply to the proposer
 * @param events ownership and lease-end events, in the order they happened
 * @param grants leases granted by this entry, in order (at most one unless it is a batch entry)
 * @param ended ids of leases this entry ended
 * @param renewed live leases a Confirm entry renews
 * @param queried live leases a Confirm entry asks the remaining time of
 * @param lockDelays names whose lock-delay this entry started (each with its delay)
 */
public record ApplyOutcome(Result result, List<ChangeEvent> events, List<LeaseRecord> grants, List<Long> ended,
                           List<LeaseRecord> renewed, List<LeaseRecord> queried, List<NameRecord> lockDelays) {
}
