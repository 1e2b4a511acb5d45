package io.regent.server.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.grpc.Status;
import io.regent.api.v1.GroupWatchResponse;
import io.regent.api.v1.ObserveResponse;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.GroupRecord;
import io.regent.statemachine.store.RegentStore;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stream whose drain the node's full blocking pool refuses is ended with RESOURCE_EXHAUSTED and the index to
 * resume after, and nothing leaves {@link EventHub#publish}: it runs on the apply thread after the LMDB commit,
 * where an exception stops the Ratis server (docs/architecture.md §9).
 */
class RefusedDrainTest {
  @TempDir
  Path dir;
  final EventHub hub = new EventHub(100);
  /** Runs tasks at once until {@link #full}, then refuses them as the node's bounded pool does when full. */
  boolean full;
  final Executor pool = task -> {
    if (full) {
      throw new RejectedExecutionException("the blocking pool is full");
    }
    task.run();
  };

  @Test
  void aGroupWatchStreamWhoseDrainIsRefusedEndsWithResourceExhaustedAndItsResumeIndex() {
    try (RegentStore store = RegentStore.open(dir)) {
      FakeServerCall<GroupWatchResponse> obs = new FakeServerCall<>();
      int[] closed = {0};
      GroupSnapshots.Shared shared = new GroupSnapshots(GroupSnapshotsTest.counting(store, new AtomicInteger()))
          .open("g");
      GroupWatchStream s = new GroupWatchStream("g", "a", 0, obs, shared, hub, pool, () -> closed[0]++);
      hub.listen(s);
      GroupSnapshotsTest.put(store, 5, aOwnsAll(5));
      s.start(5);
      assertThat(obs.sent).extracting(GroupWatchResponse::getIndex).containsExactly(5L);

      full = true;
      GroupSnapshotsTest.put(store, 6, aOwnsAll(6));
      assertThatCode(() -> hub.publish(6, List.of(groupChanged(6)))).doesNotThrowAnyException();

      assertEndedOverloaded(obs.error, "--after 5");
      assertThat(closed[0]).isEqualTo(1);
    }
  }

  @Test
  void anObserveStreamWhoseDrainIsRefusedEndsWithResourceExhaustedAndItsResumeIndex() {
    FakeServerCall<ObserveResponse> obs = new FakeServerCall<>();
    int[] closed = {0};
    ObserveStream s = new ObserveStream("jobs", obs, hub, pool, 10, () -> closed[0]++);
    hub.listen(s);
    s.start(ObserveResponse.newBuilder().setIndex(3).build(), 3, 0, List.of());

    full = true;
    assertThatCode(() -> hub.publish(4, List.of(ObserveStreamTest.elected("jobs", 4)))).doesNotThrowAnyException();

    assertEndedOverloaded(obs.error, "--after 3");
    assertThat(closed[0]).isEqualTo(1);
  }

  private static void assertEndedOverloaded(Throwable error, String resumeHint) {
    assertThat(error).isNotNull();
    Status status = Status.fromThrowable(error);
    assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(status.getDescription()).contains("overloaded").contains(resumeHint);
  }

  private static ChangeEvent groupChanged(long index) {
    return new ChangeEvent(ChangeEvent.Kind.GROUP_CHANGED, "g", null, index, 0);
  }

  /** Member "a" owns every partition of group "g", with token {@code index}. */
  private static GroupRecord aOwnsAll(long index) {
    return GroupSnapshotsTest.group(List.of(1L, 1L, 1L, 1L), List.of(1L, 1L, 1L, 1L),
        List.of(index, index, index, index));
  }
}
