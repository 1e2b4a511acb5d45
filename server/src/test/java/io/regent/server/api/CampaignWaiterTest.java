package io.regent.server.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.grpc.Status;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.Holder;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;

/**
 * A waiting campaign's answer leaves the apply thread, which only hands it over (docs/architecture.md §9); a
 * full pool or a dropped waiter still gets the caller an answer.
 */
class CampaignWaiterTest {
  final EventHub hub = new EventHub(16);

  static ChangeEvent elected(long index, long lease) {
    return new ChangeEvent(ChangeEvent.Kind.ELECTED, "jobs",
        Holder.newBuilder().setLeaseId(lease).setToken(index).build(), index, lease);
  }

  /** Lease 7's waiter for "jobs", its Campaign applied at 5, settling on {@code pool}. */
  CampaignWaiter armed(Executor pool) {
    CampaignWaiter w = new CampaignWaiter(hub, "jobs", 7, pool);
    w.arm(5);
    return w;
  }

  @Test
  void theElectionIsHandedToTheExecutorNotAnsweredOnTheApplyThread() {
    Queue<Runnable> pool = new ArrayDeque<>();
    CampaignWaiter w = armed(pool::add);
    hub.publish(6, List.of(elected(6, 7)));
    assertThat(w.elected()).as("answered on the thread that published").isNotDone();

    pool.remove().run();
    assertThat(w.elected()).isCompletedWithValueMatching(h -> h.getToken() == 6);
  }

  @Test
  void theFirstOutcomeStandsWhicheverPoolThreadRunsFirst() {
    Queue<Runnable> pool = new ArrayDeque<>();
    CampaignWaiter w = armed(pool::add);
    hub.publish(6, List.of(elected(6, 7)));
    hub.publish(8, List.of(new ChangeEvent(ChangeEvent.Kind.LEASE_ENDED, "", null, 8, 7)));
    assertThat(pool).as("only the election was handed over").hasSize(1);
  }

  @Test
  void anElectedCallerIsAnsweredEvenWhenThePoolIsFull() {
    CampaignWaiter w = armed(task -> {
      throw new RejectedExecutionException("the blocking pool is full");
    });
    assertThatCode(() -> hub.publish(6, List.of(elected(6, 7)))).doesNotThrowAnyException();
    assertThat(w.elected()).isCompletedWithValueMatching(h -> h.getToken() == 6);
  }

  @Test
  void aWaiterTheHubDropsEndsItsCampaignWithInternal() {
    CampaignWaiter w = new CampaignWaiter(hub, "jobs", 7, Runnable::run);
    w.dropped(new IllegalStateException("a broken waiter"));
    assertThat(w.elected().handle((h, e) -> Status.fromThrowable(e).getCode()).join())
        .isEqualTo(Status.Code.INTERNAL);
  }

  @Test
  void aCandidacyPromotedInsideItsOwnBatchEntryIsAnswered() {
    // one batch entry at index 5: Campaign(jobs, 7) queues, then a Revoke of the holder's lease promotes it
    CampaignWaiter w = new CampaignWaiter(hub, "jobs", 7, Runnable::run);
    hub.publish(5, List.of(new ChangeEvent(ChangeEvent.Kind.REVOKED, "jobs", null, 5, 3), elected(5, 7)));
    w.arm(5); // the Campaign's own result said "not elected": it applied before the Revoke
    assertThat(w.elected()).as("before the fix only events above index 5 counted").isCompletedWithValueMatching(
        h -> h.getToken() == 5);
  }
}
