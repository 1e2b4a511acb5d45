package io.regent.statemachine.event;

import io.regent.statemachine.store.StateTxn;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Fans the events of local applies out to subscribers, keeps a bounded history so that streams can resume
 * after an index, and lets readers wait until this replica has applied a given index.
 *
 * <p>Not replicated: each node has its own history, starting at the index its state had when it started
 * (or installed a snapshot). Listeners run on the apply thread and must not block.
 */
public final class EventHub {
  private final int historyCapacity;
  private final ArrayDeque<ChangeEvent> history = new ArrayDeque<>();
  private final List<Consumer<ChangeEvent>> listeners = new CopyOnWriteArrayList<>();
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
   * between the last one it received and the snapshot's index will never come (docs/architecture.md,
   * "Snapshots").
   */
  public interface InstallListener {
    /**
     * The local state is now {@code installed}; read what is needed from it at once (the transaction ends when
     * this returns). Runs on the apply thread, in log order with the events; must not block.
     */
    void stateInstalled(StateTxn installed);
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
        i.stateInstalled(installed);
      }
    }
  }

  /** Records the events of the entry at {@code index} and notifies listeners, in log order. */
  public void publish(long index, List<ChangeEvent> events) {
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
        listeners.forEach(l -> l.accept(e));
      }
      advance(index);
    }
  }

  /**
   * Subscribes {@code listener} to every event after the current one and returns the ownership events of
   * the history with an index above {@code afterIndex}, atomically (no event is missed or seen twice).
   *
   * @return the backlog, or {@code null} when events after {@code afterIndex} are no longer known here
   *     (the listener is then not subscribed)
   */
  public synchronized List<ChangeEvent> subscribe(long afterIndex, Consumer<ChangeEvent> listener) {
    if (afterIndex < floor) {
      return null;
    }
    List<ChangeEvent> backlog = new ArrayList<>();
    for (ChangeEvent e : history) {
      if (e.index() > afterIndex) {
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

  private void advance(long index) {
    applied = Math.max(applied, index);
    Map<Long, List<CompletableFuture<Long>>> done = appliedWaiters.headMap(applied, true);
    done.values().forEach(fs -> fs.forEach(f -> f.complete(applied)));
    done.clear();
  }
}
