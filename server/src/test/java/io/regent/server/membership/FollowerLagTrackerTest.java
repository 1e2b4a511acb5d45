package io.regent.server.membership;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** When a follower's match index last moved, on an injected clock; and the degraded rule of docs/operations.md. */
class FollowerLagTrackerTest {
  private final AtomicLong nanos = new AtomicLong(1_000);
  private final FollowerLagTracker tracker = new FollowerLagTracker(nanos::get);

  private void advanceSeconds(long s) {
    nanos.addAndGet(TimeUnit.SECONDS.toNanos(s));
  }

  private static Map<String, Long> match(Object... idThenIndex) {
    Map<String, Long> m = new LinkedHashMap<>();
    for (int i = 0; i < idThenIndex.length; i += 2) {
      m.put((String) idThenIndex[i], ((Number) idThenIndex[i + 1]).longValue());
    }
    return m;
  }

  @Test
  void aStuckFollowerLagsForAsLongAsItsMatchIndexHasNotMoved() {
    assertThat(tracker.sample(match("n2", 100, "n3", 100), 100))
        .containsEntry("n2", new FollowerLag(100, 0, 0)).containsEntry("n3", new FollowerLag(100, 0, 0));
    advanceSeconds(2);
    assertThat(tracker.sample(match("n2", 150, "n3", 100), 150).get("n3")).isEqualTo(new FollowerLag(100, 50, 2.0));
    advanceSeconds(58);
    Map<String, FollowerLag> lag = tracker.sample(match("n2", 5100, "n3", 100), 5100);
    assertThat(lag.get("n2")).isEqualTo(new FollowerLag(5100, 0, 0));
    assertThat(lag.get("n3")).isEqualTo(new FollowerLag(100, 5000, 60.0));
    assertThat(FollowerLag.degraded(lag)).isEqualTo("degraded: n3 behind 5000 entries for 60 s");
  }

  @Test
  void aFollowerThatAdvancesStartsItsTimeAgain() {
    tracker.sample(match("n2", 10), 20);
    advanceSeconds(30);
    assertThat(tracker.sample(match("n2", 10), 40).get("n2").lagSeconds()).isEqualTo(30.0);
    assertThat(tracker.sample(match("n2", 11), 40)).containsEntry("n2", new FollowerLag(11, 29, 0));
    advanceSeconds(3);
    assertThat(tracker.sample(match("n2", 11), 40).get("n2").lagSeconds()).isEqualTo(3.0);
  }

  @Test
  void theTimeBehindCountsFromTheLastSampleThatFoundItCaughtUp() {
    tracker.sample(match("n2", 10), 10);
    advanceSeconds(100); // idle: no entry to send, nothing moves
    assertThat(tracker.sample(match("n2", 10), 10).get("n2").lagSeconds()).isZero();
    advanceSeconds(1);
    assertThat(tracker.sample(match("n2", 10), 12).get("n2")).isEqualTo(new FollowerLag(10, 2, 1.0));
  }

  @Test
  void aResetOrARemovalForgetsWhatWasSeen() {
    tracker.sample(match("n2", 10, "n3", 10), 20);
    advanceSeconds(20);
    tracker.reset(); // this node stopped leading; a later term's leadership starts afresh
    assertThat(tracker.sample(match("n2", 10, "n3", 10), 20).get("n2").lagSeconds()).isZero();
    advanceSeconds(5);
    tracker.sample(match("n2", 10), 20); // n3 removed
    advanceSeconds(5);
    Map<String, FollowerLag> lag = tracker.sample(match("n2", 10, "n3", 10), 20);
    assertThat(lag.get("n2").lagSeconds()).isEqualTo(10.0);
    assertThat(lag.get("n3").lagSeconds()).as("re-added: a new record").isZero();
  }

  @Test
  void aFollowerLagsWhenStalledForTenSecondsOrTenThousandEntriesBehind() {
    assertThat(new FollowerLag(5, 1, 9.9).lagging()).isFalse();
    assertThat(new FollowerLag(5, 1, 10).lagging()).isTrue();
    assertThat(new FollowerLag(5, 0, 600).lagging()).as("caught up").isFalse();
    assertThat(new FollowerLag(5, 9_999, 0).lagging()).isFalse();
    assertThat(new FollowerLag(5, 10_000, 0).lagging()).isTrue();
    Map<String, FollowerLag> two = new LinkedHashMap<>();
    two.put("n2", new FollowerLag(1, 20_000, 0.4));
    two.put("n3", new FollowerLag(1, 3, 12.7));
    two.put("n4", new FollowerLag(1, 3, 1));
    assertThat(FollowerLag.degraded(two))
        .isEqualTo("degraded: n2 behind 20000 entries for 0 s, n3 behind 3 entries for 12 s");
    assertThat(FollowerLag.degraded(Map.of("n4", new FollowerLag(1, 3, 1)))).isEmpty();
  }
}
