package io.regent.server.console;

import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.store.StateTxn;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The console's recent events: the last {@code capacity} changes this node applied (ownership changes, ended
 * leases, group changes), each numbered by a sequence local to this node's run, so that a page can poll
 * "everything after the last one I saw" without holding a connection open.
 *
 * <p>Why a log of its own rather than {@link EventHub#subscribe}: the hub's history keeps ownership changes only,
 * and a subscription is a stream to hold open; the console wants group changes too and a poll that holds no
 * thread of the node between two refreshes. Listening is what an Observe stream does: the callback runs on the
 * apply thread and only appends to a bounded deque under this object's lock (never blocks, never throws).
 */
final class EventLog implements Consumer<ChangeEvent>, EventHub.InstallListener {
  /** One event and its number in this log, 1 for the first event since the node started. */
  record Numbered(long seq, ChangeEvent event) {
  }

  /**
   * What a poll returns.
   *
   * @param events the events after the asked sequence number, oldest first, at most the asked limit
   * @param next the sequence number to ask after next time (the last one returned, or the latest when none)
   * @param compacted whether events between the asked number and the first returned are no longer here (too
   *     old, a snapshot install, or a number from before this node restarted): the page should reload state
   */
  record Page(List<Numbered> events, long next, boolean compacted) {
  }

  private final int capacity;
  private final ArrayDeque<Numbered> recent = new ArrayDeque<>();
  private long lastSeq;
  /** Events up to this number are gone: dropped for capacity, or before a snapshot install. */
  private long floor;

  /** @param capacity events kept, at least 1 */
  EventLog(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be >= 1: " + capacity);
    }
    this.capacity = capacity;
  }

  @Override
  public synchronized void accept(ChangeEvent e) {
    if (e.kind() == ChangeEvent.Kind.KV_CHANGED) {
      return; // a write of etcd's keyspace: one per KV write would push the coordination events out of the log
    }
    recent.addLast(new Numbered(++lastSeq, e));
    if (recent.size() > capacity) {
      floor = recent.removeFirst().seq();
    }
  }

  /** The state was replaced by a snapshot: what happened in the entries it covers is not known here. */
  @Override
  public synchronized void stateInstalled(StateTxn installed) {
    recent.clear();
    floor = lastSeq;
  }

  /**
   * The events after {@code after}, or the latest {@code limit} when {@code after} is negative (a page's first
   * poll, which is not a gap).
   *
   * @param after sequence number of the last event the caller saw; -1 for "the latest ones"
   * @param limit most events returned, at least 1
   */
  synchronized Page after(long after, int limit) {
    boolean compacted = after >= 0 && (after < floor || after > lastSeq);
    long from = after < 0 || after > lastSeq ? Math.max(floor, lastSeq - limit) : Math.max(after, floor);
    List<Numbered> out = new ArrayList<>();
    for (Numbered n : recent) {
      if (n.seq() > from && out.size() < limit) {
        out.add(n);
      }
    }
    return new Page(out, out.isEmpty() ? Math.max(from, lastSeq) : out.get(out.size() - 1).seq(), compacted);
  }
}
