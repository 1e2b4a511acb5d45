package io.regent.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.regent.api.v1.LeaseKeepAliveResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** LeaseKeeper's time rule on an injected clock and scheduler: every step is driven by the test. */
class LeaseKeeperTest {
  private static final long TTL = 3_000;

  private final ManualScheduler time = new ManualScheduler();
  private final List<Long> keepAliveTimeouts = new ArrayList<>();
  private final List<Long> revoked = new ArrayList<>();
  private final List<String> stepDowns = new ArrayList<>();
  private LongConsumer onKeepAlive = timeout -> { };
  private Supplier<LeaseKeepAliveResponse> answer = () -> LeaseKeepAliveResponse.newBuilder().setId(7).setTtlMs(TTL)
      .build(); // no clock reading: as from a node that sends none

  private final LeaseKeeper.Lessor lessor = new LeaseKeeper.Lessor() {
    @Override
    public LeaseKeepAliveResponse keepAlive(long leaseId, long timeoutMs) {
      keepAliveTimeouts.add(timeoutMs);
      onKeepAlive.accept(timeoutMs);
      return answer.get();
    }

    @Override
    public void revoke(long leaseId) {
      revoked.add(leaseId);
    }
  };

  private final List<String> events = new ArrayList<>();

  private LeaseKeeper start(LeaseKeeper.PauseHook hook) {
    LeaseKeeper.Options o = LeaseKeeper.options().clock(time::nanoTime).scheduler(time).pauseHook(hook);
    return LeaseKeeper.start(lessor, 7, TTL, time.nanoTime(), o, stepDowns::add);
  }

  /** A keeper that suspends at the deadline, with a grace of {@code graceMs}; events are logged in order. */
  private LeaseKeeper startSuspending(long graceMs) {
    LeaseKeeper.Options o = LeaseKeeper.options().clock(time::nanoTime).scheduler(time)
        .suspendWhenInDoubt(reason -> events.add("suspended: " + reason), () -> events.add("resumed"))
        .grace(graceMs);
    return LeaseKeeper.start(lessor, 7, TTL, time.nanoTime(), o, reason -> events.add("down: " + reason));
  }

  private void failKeepAlives() {
    onKeepAlive = timeout -> {
      throw Status.UNAVAILABLE.asRuntimeException();
    };
  }

  /**
   * Answers every keepalive at once with node {@code node}'s clock, which reads {@code nodeMsNow} now and runs at
   * {@code 1 / clientRate} of the test's clock (the client's): a client at 0.5 sees it advance 2 ms per ms of its
   * own.
   */
  private void nodeClockAt(String node, double clientRate, long nodeMsNow) {
    long origin = time.nanoTime();
    answer = () -> LeaseKeepAliveResponse.newBuilder().setId(7).setTtlMs(TTL).setNode(node).setNodeStartedMs(1)
        .setNodeClockMs(nodeMsNow + (long) ((time.nanoTime() - origin) / 1e6 / clientRate)).build();
  }

  @Test
  void aClientClockAtHalfTheNodesRateStepsDownAlthoughEveryKeepaliveIsAcknowledged() {
    for (boolean suspending : new boolean[] {false, true}) {
      events.clear();
      nodeClockAt("n1", 0.5, 1_000_000);
      long start = time.nanoTime();
      LeaseKeeper k = suspending ? startSuspending(5_000) : startWithEvents();
      // renewals every ttl/3 = 1 s of the client's clock, 2 s of the node's: the fourth is 6 s >= 5 s of the
      // node's time after the first
      time.advance(4_000);
      assertThat(events).as("suspending " + suspending).singleElement().asString()
          .startsWith("down: client clock runs at 0.50 of node n1's")
          .contains("holder stops acting; the 2/3-TTL rule assumes >= 2/3");
      assertThat(k.isValid()).isFalse();
      assertThat(k.clockRate().slow()).isTrue();
      assertThat(k.clockRate().rate()).isCloseTo(0.5, org.assertj.core.api.Assertions.within(0.01));
      assertThat(time.nanoTime() - start).isLessThanOrEqualTo(4_000_000_000L);
      int sent = keepAliveTimeouts.size();
      time.advance(10_000); // down for good: no more renewals
      assertThat(keepAliveTimeouts).hasSize(sent);
    }
  }

  @Test
  void aClientClockAtTheNodesRateOrFasterKeepsTheLease() {
    for (double clientRate : new double[] {1.0, 0.95, 2.0}) {
      events.clear();
      nodeClockAt("n1", clientRate, 1_000_000);
      LeaseKeeper k = startWithEvents();
      time.advance(60_000);
      assertThat(events).as("client at " + clientRate).isEmpty();
      assertThat(k.isValid()).isTrue();
      assertThat(k.clockRate().slow()).isFalse();
      assertThat(k.clockRate().fast()).isEqualTo(clientRate > 1.5);
      k.stop();
    }
  }

  @Test
  void aLeaderChangeRestartsTheMeasurementOnTheNewNode() {
    nodeClockAt("n1", 0.5, 1_000_000);
    LeaseKeeper k = startWithEvents();
    time.advance(2_500); // two renewals of n1, 2 s of its time apart: no estimate yet
    assertThat(k.clockRate()).isNull();
    // n2's clock has another origin: compared with n1's first reading (1 002 000), its 1 011 000 two client
    // seconds later would look like a client at 0.22
    nodeClockAt("n2", 0.5, 1_010_000);
    time.advance(2_000);
    assertThat(events).isEmpty();
    assertThat(k.clockRate()).isNull();
    time.advance(1_500); // the fourth renewal of n2 is 6 s of its time after its first
    assertThat(events).singleElement().asString().startsWith("down: client clock runs at 0.50 of node n2's");
  }

  private LeaseKeeper startWithEvents() {
    LeaseKeeper.Options o = LeaseKeeper.options().clock(time::nanoTime).scheduler(time);
    return LeaseKeeper.start(lessor, 7, TTL, time.nanoTime(), o, reason -> events.add("down: " + reason));
  }

  @Test
  void aSuspendedKeeperResumesWithTheSameLeaseWhenARenewalIsAcknowledgedInTime() {
    LeaseKeeper k = startSuspending(5_000);
    failKeepAlives(); // a failover: from 1 000 ms on, no keepalive is answered
    time.advance(1_999);
    assertThat(k.isValid()).isTrue();
    assertThat(events).isEmpty();
    time.advance(1);
    time.advance(0);
    assertThat(k.isValid()).isFalse();
    assertThat(events).singleElement().asString().startsWith("suspended: ").contains("not renewed for 2/3");
    int tried = keepAliveTimeouts.size();
    time.advance(1_000); // still renewing while suspended, each call given ttl/3
    assertThat(keepAliveTimeouts.size()).isGreaterThan(tried + 5);
    assertThat(keepAliveTimeouts.subList(tried, keepAliveTimeouts.size())).containsOnly(TTL / 3);

    onKeepAlive = timeout -> { }; // the new leader answers, at once
    time.advance(LeaseKeeper.RETRY_MS);
    time.advance(0);
    assertThat(events).hasSize(2).last().isEqualTo("resumed");
    assertThat(k.isValid()).isTrue();
    long resumedAt = time.nanoTime();
    time.advance(10_000); // back to renewing every ttl/3: valid throughout, no other event
    assertThat(k.isValid()).isTrue();
    assertThat(events).hasSize(2);
    assertThat(k.deadlineNanos()).isGreaterThan(resumedAt);
  }

  @Test
  void anAcknowledgementLaterThanTwoThirdsOfItsTtlDoesNotResume() {
    LeaseKeeper k = startSuspending(5_000);
    failKeepAlives();
    time.advance(2_000);
    time.advance(0);
    assertThat(events).singleElement().asString().startsWith("suspended");
    // answered 2.5 s after it was sent (past that send's own deadline): it proves the lease was held then,
    // not now — still suspended, still renewing
    onKeepAlive = timeout -> time.jump(2_500);
    time.advance(LeaseKeeper.RETRY_MS);
    onKeepAlive = timeout -> failKeepAlives();
    failKeepAlives();
    time.advance(0);
    assertThat(k.isValid()).isFalse();
    assertThat(events).singleElement().asString().startsWith("suspended");
    assertThat(time.pending()).isPositive();
  }

  @Test
  void aSuspendedKeeperStepsDownOnNotFoundOrAfterTtlPlusGrace() {
    LeaseKeeper gone = startSuspending(5_000);
    failKeepAlives();
    time.advance(2_000);
    onKeepAlive = timeout -> {
      throw Status.NOT_FOUND.asRuntimeException();
    };
    time.advance(LeaseKeeper.RETRY_MS);
    time.advance(0);
    assertThat(events).hasSize(2).last().asString().startsWith("down: ").contains("expired or was revoked");
    assertThat(gone.isValid()).isFalse();

    events.clear();
    long start = time.nanoTime();
    LeaseKeeper unreachable = startSuspending(500);
    failKeepAlives();
    time.advance(3_499); // last acknowledged send: the grant at `start`; ttl + grace = 3 500 ms
    assertThat(events).singleElement().asString().startsWith("suspended");
    time.advance(1);
    time.advance(0);
    assertThat(events).hasSize(2).last().asString().startsWith("down: ").contains("grace of 500 ms");
    assertThat(time.nanoTime() - start).isEqualTo(3_500_000_000L);
    assertThat(unreachable.isValid()).isFalse();
    int sent = keepAliveTimeouts.size();
    time.advance(10_000);
    assertThat(keepAliveTimeouts).hasSize(sent);
  }

  @Test
  void aNegativeGraceIsRefused() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> LeaseKeeper.options().grace(-1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("grace -1 ms");
  }

  @Test
  void renewsATtlThirdAfterEachSendWithTheValidityLeftAsDeadline() {
    LeaseKeeper k = start(() -> { });
    time.advance(999);
    assertThat(keepAliveTimeouts).isEmpty();
    time.advance(1);
    assertThat(keepAliveTimeouts).containsExactly(1_000L); // sent at 1/3 ttl, valid until 2/3 ttl
    time.advance(1_000);
    assertThat(keepAliveTimeouts).containsExactly(1_000L, 1_000L);
    time.advance(10_000);
    assertThat(k.isValid()).isTrue();
    assertThat(stepDowns).isEmpty();
  }

  @Test
  void anAcknowledgementArrivingAfterTheDeadlineDoesNotReviveTheLease() {
    LeaseKeeper k = start(() -> { });
    // The keepalive is sent at 1 000 ms and answered at 2 500 ms, past the 2 000 ms deadline. Counting it
    // (from its send time, 1 000 ms) would make the lease valid again until 3 000 ms although the holder
    // was already bound to have stopped at 2 000 ms.
    onKeepAlive = timeout -> time.jump(1_500);
    time.advance(1_000);
    assertThat(k.isValid()).isFalse();
    time.advance(0);
    assertThat(stepDowns).singleElement().asString().contains("renewed only after 2/3");
    onKeepAlive = timeout -> { };
    time.advance(5_000);
    assertThat(keepAliveTimeouts).hasSize(1);
    assertThat(k.isValid()).isFalse();
  }

  @Test
  void onceTheDeadlineHasPassedValidityStaysFalse() {
    LeaseKeeper k = start(() -> { });
    time.jump(2_000); // the watch has not run yet
    assertThat(k.isValid()).isFalse();
    time.advance(0);
    assertThat(stepDowns).singleElement().asString().contains("not renewed for 2/3");
    assertThat(k.isValid()).isFalse();
  }

  @Test
  void aPausedRenewalDoesNotDelayTheStepDown() {
    AtomicInteger paused = new AtomicInteger();
    LeaseKeeper k = start(() -> {
      paused.incrementAndGet();
      throw new InterruptedException("paused past the deadline");
    });
    time.advance(1_999);
    assertThat(paused).hasValue(1);
    assertThat(k.isValid()).isTrue();
    time.advance(1);
    assertThat(k.isValid()).isFalse();
    assertThat(stepDowns).singleElement().asString().contains("not renewed for 2/3");
    assertThat(keepAliveTimeouts).isEmpty();
  }

  @Test
  void aFailedKeepAliveIsRetriedSoonAndNotFoundStepsDownAtOnce() {
    LeaseKeeper k = start(() -> { });
    onKeepAlive = timeout -> {
      throw Status.DEADLINE_EXCEEDED.asRuntimeException();
    };
    time.advance(1_000);
    time.advance(LeaseKeeper.RETRY_MS);
    assertThat(keepAliveTimeouts).containsExactly(1_000L, 900L);
    onKeepAlive = timeout -> {
      throw Status.NOT_FOUND.asRuntimeException();
    };
    time.advance(LeaseKeeper.RETRY_MS);
    time.advance(0);
    assertThat(stepDowns).singleElement().asString().contains("expired or was revoked");
    assertThat(k.isValid()).isFalse();
  }

  @Test
  void stopNeitherRevokesNorCallsBackAndCloseRevokes() {
    LeaseKeeper stopped = start(() -> { });
    stopped.stop();
    time.advance(10_000);
    assertThat(keepAliveTimeouts).isEmpty();
    assertThat(stepDowns).isEmpty();
    assertThat(revoked).isEmpty();
    assertThat(stopped.isValid()).isFalse();

    LeaseKeeper closed = start(() -> { });
    closed.close();
    assertThat(revoked).containsExactly(7L);
    assertThat(time.pending()).isZero();
  }
}
