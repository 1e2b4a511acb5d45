package io.regent.statemachine.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.regent.statemachine.proto.Holder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A listener runs on the apply thread, after the entry's LMDB commit: whatever it throws must stay in the hub,
 * or Ratis stops the server (docs/architecture.md §9).
 */
class EventHubTest {
  final EventHub hub = new EventHub(100);

  static ChangeEvent elected(String name, long index) {
    return new ChangeEvent(ChangeEvent.Kind.ELECTED, name,
        Holder.newBuilder().setLeaseId(index).setToken(index).build(), index, index);
  }

  @Test
  void aListenerThatThrowsIsDroppedAndTheOthersAndTheAppliedIndexGoOn() {
    List<Long> before = new ArrayList<>();
    List<Long> after = new ArrayList<>();
    AtomicInteger calls = new AtomicInteger();
    hub.listen(e -> before.add(e.index()));
    hub.listen(e -> {
      calls.incrementAndGet();
      throw new IllegalStateException("a broken listener");
    });
    hub.listen(e -> after.add(e.index()));

    assertThatCode(() -> hub.publish(1, List.of(elected("a", 1), elected("b", 1)))).doesNotThrowAnyException();
    hub.publish(2, List.of(elected("a", 2)));

    assertThat(calls).as("dropped at its first failure").hasValue(1);
    assertThat(before).containsExactly(1L, 1L, 2L);
    assertThat(after).containsExactly(1L, 1L, 2L);
    assertThat(hub.appliedIndex()).isEqualTo(2);
    assertThat(hub.awaitApplied(2)).isCompletedWithValue(2L);
  }

  @Test
  void aDroppableListenerThatThrowsIsToldWhyItWasDropped() {
    List<RuntimeException> told = new ArrayList<>();
    class Stream implements java.util.function.Consumer<ChangeEvent>, EventHub.Droppable {
      @Override
      public void accept(ChangeEvent e) {
        throw new IllegalStateException("cannot deliver " + e.index());
      }

      @Override
      public void dropped(RuntimeException cause) {
        told.add(cause);
        throw new IllegalStateException("and cannot end either");
      }
    }
    hub.listen(new Stream());

    assertThatCode(() -> hub.publish(1, List.of(elected("a", 1)))).doesNotThrowAnyException();
    hub.publish(2, List.of(elected("a", 2)));

    assertThat(told).singleElement().extracting(Throwable::getMessage).isEqualTo("cannot deliver 1");
  }
}
