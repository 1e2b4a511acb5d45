package io.regent.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.regent.api.v1.ObserveResponse;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.Holder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Observe streams deliver in log order after their first message and never buffer without bound. */
class ObserveStreamTest {
  final EventHub hub = new EventHub(100);
  final FakeServerCall<ObserveResponse> obs = new FakeServerCall<>();

  static ChangeEvent elected(String name, long index) {
    return new ChangeEvent(ChangeEvent.Kind.ELECTED, name,
        Holder.newBuilder().setLeaseId(index).setToken(index).build(), index, index);
  }

  @Test
  void eventsAtOrBelowTheFirstMessagesIndexAreSkippedAndLaterOnesFollowInOrder() {
    ObserveStream s = new ObserveStream("jobs", obs, hub, Runnable::run, 10, () -> { });
    hub.listen(s);
    hub.publish(5, List.of(elected("jobs", 5)));
    hub.publish(6, List.of(elected("other", 6)));
    hub.publish(7, List.of(elected("jobs", 7)));
    s.start(ObserveResponse.newBuilder().setKind(ObserveResponse.Kind.CURRENT).setIndex(5).build(), 5, 0, List.of());
    hub.publish(9, List.of(elected("jobs", 9)));
    assertThat(obs.sent).extracting(ObserveResponse::getIndex).containsExactly(5L, 7L, 9L);
  }

  @Test
  void aConsumerThatFallsBehindItsBufferIsClosedWithResourceExhaustedAndTheIndexToResumeAfter() {
    int[] closed = {0};
    ObserveStream s = new ObserveStream("jobs", obs, hub, Runnable::run, 10, () -> closed[0]++);
    hub.listen(s);
    s.start(ObserveResponse.newBuilder().setIndex(0).build(), 0, 0, List.of());
    hub.publish(1, List.of(elected("jobs", 1)));
    obs.ready = false;
    for (int i = 2; i <= 12; i++) {
      hub.publish(i, List.of(elected("jobs", i)));
      assertThat(s.queued()).isLessThanOrEqualTo(10);
    }
    assertThat(obs.error).isNotNull();
    Status status = Status.fromThrowable(obs.error);
    assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(status.getDescription()).contains("fell 10 events behind").contains("--after 1");
    assertThat(closed[0]).isEqualTo(1);
    obs.ready = true;
    hub.publish(13, List.of(elected("jobs", 13)));
    assertThat(obs.sent).extracting(ObserveResponse::getIndex).containsExactly(0L, 1L);
    assertThat(s.queued()).isZero();
  }

  @Test
  void resumingAfterAnIndexStillInTheHistoryReplaysOnlyLaterEvents() {
    hub.reset(3);
    hub.publish(4, List.of(elected("jobs", 4)));
    hub.publish(6, List.of(elected("jobs", 6)));
    assertThat(hub.subscribe(4, 0, e -> { })).extracting(ChangeEvent::index).containsExactly(6L);
    assertThat(hub.subscribe(2, 0, e -> { })).as("older than this node's history: compacted").isNull();
  }

  static ChangeEvent resigned(String name, long index) {
    return new ChangeEvent(ChangeEvent.Kind.RESIGNED, name, null, index, 1);
  }

  /**
   * RESIGNED A and ELECTED B in one entry: a stream sends both, each with its ordinal, and a client that saw only the
   * first resumes after (index, 1) and gets the second; ordinal 0 (an older client) resumes after the whole entry.
   */
  @Test
  void aResumptionAfterTheFirstEventOfAnEntryGetsItsSecond() {
    ObserveStreams streams = new ObserveStreams(null, hub, Runnable::run, 10, 10);
    hub.reset(3);
    FakeServerCall<ObserveResponse> live = new FakeServerCall<>();
    streams.observe("jobs", 3, 0, live);
    hub.publish(5, List.of(resigned("jobs", 5), elected("other", 5), elected("jobs", 5)));
    assertThat(live.sent).extracting(ObserveResponse::getKind, ObserveResponse::getIndex, ObserveResponse::getOrdinal)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(ObserveResponse.Kind.RESIGNED, 5L, 1),
            org.assertj.core.groups.Tuple.tuple(ObserveResponse.Kind.ELECTED, 5L, 2));

    FakeServerCall<ObserveResponse> resumed = new FakeServerCall<>();
    streams.observe("jobs", 5, 1, resumed);
    hub.publish(6, List.of(resigned("jobs", 6)));
    assertThat(resumed.sent).extracting(ObserveResponse::getKind, ObserveResponse::getIndex, ObserveResponse::getOrdinal)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(ObserveResponse.Kind.ELECTED, 5L, 2),
            org.assertj.core.groups.Tuple.tuple(ObserveResponse.Kind.RESIGNED, 6L, 1));

    FakeServerCall<ObserveResponse> old = new FakeServerCall<>();
    streams.observe("jobs", 5, 0, old);
    assertThat(old.sent).extracting(ObserveResponse::getIndex).containsExactly(6L);
  }

  /** A stream ended after the first of two events of one entry tells a resumption point that skips neither. */
  @Test
  void aStreamEndedMidWayIntoAnEntrySaysToResumeBeforeIt() {
    FakeServerCall<ObserveResponse> takesTwo = new FakeServerCall<>() {
      @Override
      public boolean isReady() {
        return sent.size() < 2;
      }
    };
    ObserveStream s = new ObserveStream("jobs", takesTwo, hub, Runnable::run, 1, () -> { });
    hub.listen(s);
    s.start(ObserveResponse.newBuilder().setIndex(4).build(), 4, 0, List.of());
    hub.publish(5, List.of(resigned("jobs", 5), elected("jobs", 5))); // CURRENT and RESIGNED (5, 1) go; (5, 2) waits
    hub.publish(6, List.of(elected("jobs", 6))); // the buffer of 1 is full: the stream ends
    assertThat(takesTwo.sent).extracting(ObserveResponse::getIndex).containsExactly(4L, 5L);
    assertThat(Status.fromThrowable(takesTwo.error).getDescription()).endsWith("--after 4");
  }
}
