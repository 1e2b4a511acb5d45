package io.regent.server.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The keyed heap of lease times: one entry per id, moved in place by {@link DeadlineHeap#put} and taken out by
 * {@link DeadlineHeap#remove}, so an id's old time never surfaces (the bug a lazy-deletion queue invites when
 * it forgets to check an entry surfacing against the id's current time).
 */
class DeadlineHeapTest {
  final DeadlineHeap heap = new DeadlineHeap();

  @Test
  void anIdMovedLaterSurfacesOnlyAtItsNewTime() {
    heap.put(1, 100);
    heap.put(2, 200);
    heap.put(1, 300);
    assertThat(heap.size()).isEqualTo(2);
    assertThat(heap.at(1)).isEqualTo(300);
    assertThat(heap.peekId()).isEqualTo(2);
    assertThat(polled()).containsExactly(2L, 1L);
  }

  @Test
  void anIdMovedEarlierSurfacesOnceAtItsNewTime() {
    heap.put(1, 300);
    heap.put(2, 200);
    heap.put(1, 50);
    assertThat(heap.peekAt()).isEqualTo(50);
    assertThat(polled()).as("no second entry of 1 at 300").containsExactly(1L, 2L);
  }

  @Test
  void aRemovedIdNeverSurfaces() {
    for (long id = 1; id <= 7; id++) {
      heap.put(id, id * 10);
    }
    assertThat(heap.remove(4)).isTrue();
    assertThat(heap.remove(1)).as("the top").isTrue();
    assertThat(heap.remove(7)).as("the last slot").isTrue();
    assertThat(heap.remove(4)).as("already out").isFalse();
    assertThat(heap.remove(99)).as("never in").isFalse();
    assertThat(heap.contains(4)).isFalse();
    assertThat(polled()).containsExactly(2L, 3L, 5L, 6L);
  }

  @Test
  void equalTimesGoToTheLowerIdFirst() {
    heap.put(9, 5);
    heap.put(3, 5);
    heap.put(6, 5);
    assertThat(polled()).containsExactly(3L, 6L, 9L);
  }

  @Test
  void anEmptyOrClearedHeapHasNoTop() {
    assertThatThrownBy(heap::peekId).isInstanceOf(NoSuchElementException.class);
    heap.put(1, 1);
    heap.clear();
    assertThat(heap.isEmpty()).isTrue();
    assertThat(heap.contains(1)).isFalse();
    assertThatThrownBy(heap::poll).isInstanceOf(NoSuchElementException.class);
    assertThatThrownBy(() -> heap.at(1)).isInstanceOf(NoSuchElementException.class);
  }

  /** Random puts (new ids, moves earlier and later), removes and polls over many ids, against a sorted model. */
  @Test
  void manyIdsStayInTimeOrderThroughRandomMovesAndRemovals() {
    Random random = new Random(23);
    Map<Long, Long> model = new HashMap<>();
    TreeSet<long[]> order = new TreeSet<>(Comparator.<long[]>comparingLong(e -> e[1]).thenComparingLong(e -> e[0]));
    for (int op = 0; op < 200_000; op++) {
      long id = random.nextInt(5_000);
      int kind = random.nextInt(10);
      if (kind < 6) {
        long at = random.nextInt(1_000_000) - 500_000; // negative too, as System.nanoTime may be
        Long before = model.put(id, at);
        if (before != null) {
          order.remove(new long[] {id, before});
        }
        order.add(new long[] {id, at});
        heap.put(id, at);
      } else if (kind < 8) {
        Long before = model.remove(id);
        if (before != null) {
          order.remove(new long[] {id, before});
        }
        assertThat(heap.remove(id)).isEqualTo(before != null);
      } else if (!order.isEmpty()) {
        long[] first = order.pollFirst();
        model.remove(first[0]);
        assertThat(heap.poll()).isEqualTo(first[0]);
      }
      assertThat(heap.size()).isEqualTo(model.size());
      if (!order.isEmpty()) {
        assertThat(heap.peekId()).isEqualTo(order.first()[0]);
        assertThat(heap.peekAt()).isEqualTo(order.first()[1]);
      }
    }
    model.forEach((id, at) -> assertThat(heap.at(id)).isEqualTo(at));
    List<Long> expected = order.stream().map(e -> e[0]).toList();
    assertThat(polled()).isEqualTo(expected);
  }

  private List<Long> polled() {
    List<Long> out = new ArrayList<>();
    while (!heap.isEmpty()) {
      out.add(heap.poll());
    }
    return out;
  }
}
