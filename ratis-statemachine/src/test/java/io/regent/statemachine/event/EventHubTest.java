package io.regent.statemachine.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.regent.statemachine.proto.Holder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
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

  static ChangeEvent resigned(String name, long index, long lease) {
    return new ChangeEvent(ChangeEvent.Kind.RESIGNED, name, null, index, lease);
  }

  /**
   * One entry can change one name twice (a resign that hands it on, two operations of a batch): the hub numbers each
   * name's ownership events within their entry, and a resumption after (index, ordinal) gets the rest of that entry
   * (docs/architecture.md §4.3).
   */
  @Test
  void eventsAreNumberedPerNameWithinTheirEntryAndAResumptionMidEntryGetsTheRestOfIt() {
    hub.reset(3);
    List<ChangeEvent> heard = new ArrayList<>();
    hub.listen(heard::add);
    hub.publish(5, List.of(resigned("jobs", 5, 1), elected("other", 5), elected("jobs", 5)));
    hub.publish(6, List.of(resigned("jobs", 6, 5)));
    assertThat(heard).extracting(ChangeEvent::name, ChangeEvent::ordinal).containsExactly(
        org.assertj.core.groups.Tuple.tuple("jobs", 1), org.assertj.core.groups.Tuple.tuple("other", 1),
        org.assertj.core.groups.Tuple.tuple("jobs", 2), org.assertj.core.groups.Tuple.tuple("jobs", 1));

    assertThat(hub.subscribe(5, 1, e -> { })).filteredOn(e -> e.name().equals("jobs"))
        .extracting(ChangeEvent::kind, ChangeEvent::index).containsExactly(
            org.assertj.core.groups.Tuple.tuple(ChangeEvent.Kind.ELECTED, 5L),
            org.assertj.core.groups.Tuple.tuple(ChangeEvent.Kind.RESIGNED, 6L));
    assertThat(hub.subscribe(5, 0, e -> { })).as("ordinal 0: after the whole entry, as before")
        .extracting(ChangeEvent::index).containsExactly(6L);
    assertThat(hub.subscribe(3, 1, e -> { })).as("mid-way into an entry the history does not hold whole").isNull();
    assertThat(hub.subscribe(3, 0, e -> { })).extracting(ChangeEvent::index).containsExactly(5L, 5L, 5L, 6L);
  }

  /** The history may roll over inside an entry: resuming mid-way into that entry is no longer possible here. */
  @Test
  void aResumptionMidWayIntoAnEntryWhoseStartRolledOutOfTheHistoryIsCompacted() {
    EventHub small = new EventHub(2);
    small.publish(5, List.of(resigned("jobs", 5, 1), elected("jobs", 5)));
    small.publish(6, List.of(resigned("jobs", 6, 5)));
    assertThat(small.subscribe(5, 1, e -> { })).isNull();
    assertThat(small.subscribe(5, 2, e -> { })).as("all of entry 5 up to 2 was seen; but 1 rolled out").isNull();
    assertThat(small.subscribe(5, 0, e -> { })).extracting(ChangeEvent::index).containsExactly(6L);
  }

  @Test
  void aLeasesListenerGetsThatLeasesEventsOnlyUntilItLeaves() {
    List<Long> of7 = new ArrayList<>();
    Consumer<ChangeEvent> listener = e -> of7.add(e.index());
    hub.listenToLease(7, listener);
    hub.publish(6, List.of(elected("a", 6)));
    hub.publish(7, List.of(elected("b", 7), elected("c", 7)));
    hub.unsubscribeFromLease(7, listener);
    hub.publish(8, List.of(new ChangeEvent(ChangeEvent.Kind.LEASE_ENDED, "", null, 8, 7)));

    assertThat(of7).as("lease 6's event is not lease 7's; nothing after leaving").containsExactly(7L, 7L);
  }

  @Test
  void aLeasesListenerThatThrowsIsDroppedAndToldWhileTheOthersGoOn() {
    List<RuntimeException> told = new ArrayList<>();
    AtomicInteger calls = new AtomicInteger();
    class Broken implements Consumer<ChangeEvent>, EventHub.Droppable {
      @Override
      public void accept(ChangeEvent e) {
        calls.incrementAndGet();
        throw new IllegalStateException("a broken waiter");
      }

      @Override
      public void dropped(RuntimeException cause) {
        told.add(cause);
      }
    }
    List<Long> sameLease = new ArrayList<>();
    hub.listenToLease(3, new Broken());
    hub.listenToLease(3, e -> sameLease.add(e.index()));

    assertThatCode(() -> hub.publish(3, List.of(elected("a", 3)))).doesNotThrowAnyException();
    hub.publish(4, List.of(new ChangeEvent(ChangeEvent.Kind.LEASE_ENDED, "", null, 4, 3)));

    assertThat(calls).hasValue(1);
    assertThat(told).singleElement().extracting(Throwable::getMessage).isEqualTo("a broken waiter");
    assertThat(sameLease).containsExactly(3L, 4L);
    assertThat(hub.appliedIndex()).isEqualTo(4);
  }
}
