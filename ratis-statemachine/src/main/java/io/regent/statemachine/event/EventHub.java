package io.regent.statemachine.event;

import io.regent.statemachine.store.StateTxn;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fans the events of local applies out to subscribers, keeps a bounded history so that streams can resume
 * after an index, and lets readers wait until this replica has applied a given index.
 *
 * <p>Not replicated: each node has its own history, starting at the index its state had when it started
 * (or installed a snapshot). Listeners run on the apply thread and must not block.
 *
 * <p>Nothing a listener does leaves the hub: {@link #publish} and {@link #installed} run inside
 * {@code applyTransaction}, after the entry's LMDB commit, where an exception stops the Ratis server
 * (docs/architecture.md §9, docs/ratis.md §11) — on every replica, since every replica applies the same entry. A
 * listener that throws is logged and dropped; one that is {@link Droppable} is then told, so that what it serves
 * ends.
 */
public final class EventHub {
  private static final Logger LOG = LoggerFactory.getLogger(EventHub.class);

  private final int historyCapacity;
  private final ArrayDeque<ChangeEvent> history = new ArrayDeque<>();
  private final List<Consumer<ChangeEvent>> listeners = new CopyOnWriteArrayList<>();
  /**
   * Listeners of one lease's events ({@link #listenToLease}): a campaign's waiter. Kept apart from {@link #listeners}
   * so that an event reaches the waiters of its own lease only, not every call in flight (issue 35: at 64 clients,
   * each event was handed to every waiting campaign on the apply thread, and an unarmed waiter kept a copy).
   */
  private final ConcurrentHashMap<Long, List<Consumer<ChangeEvent>>> byLease = new ConcurrentHashMap<>();
  private final TreeMap<Long, List<CompletableFuture<Long>>> appliedWaiters = new TreeMap<>();
  private long floor;
  private long applied;

  /** @param historyCapacity events kept for resumption (at least 1) */
  public EventHub(int historyCapacity) {
    if (historyCapacity < 1) {
      throw new IllegalArgumentException("historyCapacity must be >= 1: " + historyCapacity);
    }
    this.historyCapacity = historyCapacity;
  }

  /**
   * A listener that must also learn when the local state is replaced by an installed snapshot: the events
   * between the last one it received and the snapshot's index will never come (docs/architecture.md
   * §2.5).
   */
  public interface InstallListener {
    /**
     * The local state is now {@code installed}; read what is needed from it at once (the transaction ends when
     * this returns). Runs on the apply thread, in log order with the events; must not block.
     */
    void stateInstalled(StateTxn installed);
  }

  /**
   * A listener that serves something outside the hub (a stream, a waiting call): when it throws, the hub drops it
   * and tells it, so that what it serves ends instead of waiting for events that no longer come.
   */
  public interface Droppable {
    /**
     * The hub unsubscribed this listener because it threw {@code cause}. Runs on the apply thread: must not block;
     * what it throws is logged and goes no further.
     */
    void dropped(RuntimeException cause);
  }

  /**
   * Declares that the local state starts at {@code index} (node start): the history before it is unknown here,
   * so resumption from an older index reports {@code compacted}.
   */
  public synchronized void reset(long index) {
    history.clear();
    floor = index;
    advance(index);
  }

  /**
   * Declares that the local state was replaced by {@code installed} (a snapshot install): as {@link #reset}
   * at its applied index, and every listener that is an {@link InstallListener} is told, so that no stream
   * or waiter misses what happened in the entries the snapshot covers.
   */
  public synchronized void installed(StateTxn installed) {
    reset(installed.appliedIndex());
    for (Consumer<ChangeEvent> l : listeners) {
      if (l instanceof InstallListener i) {
        notify(l, () -> i.stateInstalled(installed));
      }
    }
    for (Map.Entry<Long, List<Consumer<ChangeEvent>>> lease : byLease.entrySet()) {
      for (Consumer<ChangeEvent> l : lease.getValue()) {
        if (l instanceof InstallListener i) {
          notifyOfLease(lease.getKey(), l, () -> i.stateInstalled(installed));
        }
      }
    }
  }

  /**
   * Records the events of the entry at {@code index} and notifies listeners, in log order; each ownership event
   * is numbered first ({@link ChangeEvent#ordinal}: 1, 2, ... per name within the entry).
   */
  public void publish(long index, List<ChangeEvent> entryEvents) {
    List<ChangeEvent> events = numbered(entryEvents);
    synchronized (this) {
      for (ChangeEvent e : events) {
        if (e.kind().isOwnershipChange()) {
          history.addLast(e);
          if (history.size() > historyCapacity) {
            floor = Math.max(floor, history.removeFirst().index());
          }
        }
      }
      for (ChangeEvent e : events) {
        listeners.forEach(l -> notify(l, () -> l.accept(e)));
        List<Consumer<ChangeEvent>> ofLease = byLease.get(e.leaseId());
        if (ofLease != null) {
          ofLease.forEach(l -> notifyOfLease(e.leaseId(), l, () -> l.accept(e)));
        }
      }
      advance(index);
    }
  }

  /**
   * Subscribes {@code listener} to every event after the current one and returns the ownership events of
   * the history after position ({@code afterIndex}, {@code afterOrdinal}), atomically (no event is missed or seen
   * twice): those with an index above {@code afterIndex}, and, when {@code afterOrdinal} is above 0, those of the
   * entry at {@code afterIndex} with a larger ordinal. Ordinals count per name, so the caller keeps the events
   * of the name it resumes and drops the others.
   *
   * @param afterOrdinal 0: after the whole entry at {@code afterIndex}
   * @return the backlog, or {@code null} when events after that position are no longer known here (the listener
   *     is then not subscribed): {@code afterIndex} is older than the history, or it is the history's first
   *     entry and {@code afterOrdinal} is above 0 (that entry may have rolled out of the history in part, or
   *     predate it)
   */
  public synchronized List<ChangeEvent> subscribe(long afterIndex, int afterOrdinal, Consumer<ChangeEvent> listener) {
    if (afterIndex < floor || (afterOrdinal > 0 && afterIndex == floor)) {
      return null;
    }
    List<ChangeEvent> backlog = new ArrayList<>();
    for (ChangeEvent e : history) {
      if (e.index() > afterIndex || (afterOrdinal > 0 && e.index() == afterIndex && e.ordinal() > afterOrdinal)) {
        backlog.add(e);
      }
    }
    listeners.add(listener);
    return backlog;
  }

  /** Adds a listener for events from now on. */
  public void listen(Consumer<ChangeEvent> listener) {
    listeners.add(listener);
  }

  /** Removes a listener; no effect when absent. */
  public void unsubscribe(Consumer<ChangeEvent> listener) {
    listeners.remove(listener);
  }

  /**
   * Adds a listener for the events of lease {@code leaseId} from now on: those whose {@link ChangeEvent#leaseId} it
   * is, and, when it is an {@link InstallListener}, snapshot installs. Cheaper than {@link #listen} for a caller that
   * judges one lease's events only, as a campaign's waiter does.
   */
  public void listenToLease(long leaseId, Consumer<ChangeEvent> listener) {
    byLease.compute(leaseId, (id, ls) -> {
      List<Consumer<ChangeEvent>> out = ls == null ? new CopyOnWriteArrayList<>() : ls;
      out.add(listener);
      return out;
    });
  }

  /** Removes a listener added by {@link #listenToLease}; no effect when absent. */
  public void unsubscribeFromLease(long leaseId, Consumer<ChangeEvent> listener) {
    byLease.computeIfPresent(leaseId, (id, ls) -> {
      ls.remove(listener);
      return ls.isEmpty() ? null : ls;
    });
  }

  /** A future completed with the applied index once this replica has applied {@code index}. */
  public synchronized CompletableFuture<Long> awaitApplied(long index) {
    if (applied >= index) {
      return CompletableFuture.completedFuture(applied);
    }
    CompletableFuture<Long> f = new CompletableFuture<>();
    appliedWaiters.computeIfAbsent(index, k -> new ArrayList<>()).add(f);
    return f;
  }

  /** The highest index this replica has applied (entries and snapshot installs). */
  public synchronized long appliedIndex() {
    return applied;
  }

  /** {@code events} of one entry with each ownership event numbered per name, 1, 2, ...; the others as they are. */
  private static List<ChangeEvent> numbered(List<ChangeEvent> events) {
    HashMap<String, Integer> perName = events.size() > 1 ? new HashMap<>() : null;
    List<ChangeEvent> out = new ArrayList<>(events.size());
    for (ChangeEvent e : events) {
      out.add(!e.kind().isOwnershipChange() ? e : e.numbered(perName == null ? 1 : perName.merge(e.name(), 1,
          Integer::sum)));
    }
    return out;
  }

  private void advance(long index) {
    applied = Math.max(applied, index);
    Map<Long, List<CompletableFuture<Long>>> done = appliedWaiters.headMap(applied, true);
    for (List<CompletableFuture<Long>> fs : done.values()) {
      for (CompletableFuture<Long> f : fs) {
        try {
          f.complete(applied);
        } catch (RuntimeException e) { // an async dependent whose executor refused it throws out of complete
          LOG.error("a reader waiting for index {} failed on the apply thread: {}", applied, e.toString(), e);
        }
      }
    }
    done.clear();
  }

  /** Runs one callback of {@code listener}; if it throws, the listener is dropped and the apply goes on. */
  private void notify(Consumer<ChangeEvent> listener, Runnable callback) {
    notify(listener, callback, () -> listeners.remove(listener));
  }

  /** {@link #notify} for a listener of lease {@code leaseId}. */
  private void notifyOfLease(long leaseId, Consumer<ChangeEvent> listener, Runnable callback) {
    notify(listener, callback, () -> unsubscribeFromLease(leaseId, listener));
  }

  private void notify(Consumer<ChangeEvent> listener, Runnable callback, Runnable drop) {
    try {
      callback.run();
    } catch (RuntimeException e) {
      drop.run();
      LOG.error("event listener {} threw on the apply thread and was dropped: {}", listener, e.toString(), e);
      if (listener instanceof Droppable d) {
        try {
          d.dropped(e);
        } catch (RuntimeException again) {
          LOG.error("dropped event listener {} threw again while ending: {}", listener, again.toString(), again);
        }
      }
    }
  }
}
