package io.regent.server.lease;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * Lease ids ordered by a time each is due (ns, monotonic clock), at most one entry per id: an indexed binary
 * min-heap (etcd's lessor keeps its lease queue the same way). {@link #put} sets an id's time in place and
 * {@link #remove} takes an id out, both in O(log n), so no stale entry is ever left behind to surface later;
 * {@link #peekId} and {@link #peekAt} are O(1). Ties in time go to the lower id. Times are compared as plain
 * longs: readings of one JVM's {@code System.nanoTime} do not wrap.
 *
 * <p>Guava, on the class path, has no heap that updates or removes by key in O(log n), hence this class. Not
 * thread-safe: {@link Lessor} locks.
 */
final class DeadlineHeap {
  private long[] ids = new long[16];
  private long[] ats = new long[16];
  private int size;
  /** Each id's position in {@link #ids} and {@link #ats}. */
  private final Map<Long, Integer> slots = new HashMap<>();

  /** Number of ids in the heap. */
  int size() {
    return size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  /** Whether {@code id} is in the heap. */
  boolean contains(long id) {
    return slots.containsKey(id);
  }

  /** The time {@code id} is due at, ns. @throws NoSuchElementException when it is not in the heap */
  long at(long id) {
    return ats[slot(id)];
  }

  /** Sets {@code id} due at {@code at} (ns): adds it, or moves its one entry. O(log n). */
  void put(long id, long at) {
    Integer i = slots.get(id);
    if (i == null) {
      if (size == ids.length) {
        ids = Arrays.copyOf(ids, size * 2);
        ats = Arrays.copyOf(ats, size * 2);
      }
      set(size, id, at);
      up(size++);
    } else {
      long before = ats[i];
      ats[i] = at;
      if (at < before) {
        up(i);
      } else {
        down(i);
      }
    }
  }

  /** Takes {@code id} out of the heap. O(log n). @return whether it was in it */
  boolean remove(long id) {
    Integer i = slots.remove(id);
    if (i == null) {
      return false;
    }
    int last = --size;
    if (i != last) {
      // the last entry fills the hole, then moves up or down to where it belongs
      long moved = ids[last];
      set(i, moved, ats[last]);
      up(i);
      down(slots.get(moved));
    }
    return true;
  }

  /** The id due first. @throws NoSuchElementException when the heap is empty */
  long peekId() {
    requireNonEmpty();
    return ids[0];
  }

  /** The earliest time in the heap, ns. @throws NoSuchElementException when the heap is empty */
  long peekAt() {
    requireNonEmpty();
    return ats[0];
  }

  /** Takes out the id due first and returns it. O(log n). @throws NoSuchElementException when empty */
  long poll() {
    long id = peekId();
    remove(id);
    return id;
  }

  /** Takes every id out. */
  void clear() {
    size = 0;
    slots.clear();
  }

  private int slot(long id) {
    Integer i = slots.get(id);
    if (i == null) {
      throw new NoSuchElementException("lease " + id + " is not in the heap");
    }
    return i;
  }

  private void requireNonEmpty() {
    if (size == 0) {
      throw new NoSuchElementException("the heap is empty");
    }
  }

  private void up(int i) {
    while (i > 0) {
      int parent = (i - 1) / 2;
      if (!before(i, parent)) {
        return;
      }
      swap(i, parent);
      i = parent;
    }
  }

  private void down(int i) {
    while (true) {
      int first = i;
      for (int child = 2 * i + 1; child <= 2 * i + 2 && child < size; child++) {
        if (before(child, first)) {
          first = child;
        }
      }
      if (first == i) {
        return;
      }
      swap(i, first);
      i = first;
    }
  }

  /** Whether the entry at {@code a} comes before the one at {@code b}: earlier time, then lower id. */
  private boolean before(int a, int b) {
    return ats[a] != ats[b] ? ats[a] < ats[b] : ids[a] < ids[b];
  }

  private void swap(int a, int b) {
    long id = ids[a];
    long at = ats[a];
    set(a, ids[b], ats[b]);
    set(b, id, at);
  }

  private void set(int i, long id, long at) {
    ids[i] = id;
    ats[i] = at;
    slots.put(id, i);
  }
}
