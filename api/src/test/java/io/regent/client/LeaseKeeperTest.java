package io.regent.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.Test;

/** LeaseKeeper's time rule on an injected clock and scheduler: every step is driven by the test. */
class LeaseKeeperTest {
  private static final long TTL = 3_000;

  private final ManualScheduler time = new ManualScheduler();
  private final List<Long> keepAliveTimeouts = new ArrayList<>();
  private final List<Long> revoked = new ArrayList<>();
  private final List<String> stepDowns = new ArrayList<>();
  private LongConsumer onKeepAlive = timeout -> { };

  private final LeaseKeeper.Lessor lessor = new LeaseKeeper.Lessor() {
    @Override
    public void keepAlive(long leaseId, long timeoutMs) {
      keepAliveTimeouts.add(timeoutMs);
      onKeepAlive.accept(timeoutMs);
    }

    @Override
    public void revoke(long leaseId) {
      revoked.add(leaseId);
    }
  };

  private LeaseKeeper start(LeaseKeeper.PauseHook hook) {
    LeaseKeeper.Options o = LeaseKeeper.options().clock(time::nanoTime).scheduler(time).pauseHook(hook);
    return LeaseKeeper.start(lessor, 7, TTL, time.nanoTime(), o, stepDowns::add);
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
