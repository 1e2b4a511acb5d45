package io.regent.jepsen.history;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An ordered Jepsen/Knossos history. The order of the events is the real-time order (the order in
 * which the test recorded them), as in Knossos; {@code :time} is informational.
 *
 * <p>Client events are paired per process: each {@code :invoke} with the next completion ({@code :ok},
 * {@code :fail} or {@code :info}) of the same process. An {@code :info} completion, or no completion
 * at all, leaves the operation open until the end of the history: it may or may not have taken effect.
 * Jepsen retires a process after an {@code :info}; if a process nonetheless invokes again while an
 * operation is open, the earlier one simply stays open. Events of the {@code :nemesis} process are
 * kept in {@link #ops()} and {@link #nemesis()} but take no part in pairing.
 */
public final class History {
  private final List<Op> ops;
  private final List<Operation> operations;
  private final List<Op> nemesis;

  /**
   * Builds and pairs a history.
   *
   * @throws IllegalArgumentException if a client completion has no open invoke in its process, or
   *     names a different {@code :f} than its invoke
   */
  public History(List<Op> events) {
    this.ops = List.copyOf(events);
    List<Op> nem = new ArrayList<>();
    Map<Long, Integer> open = new HashMap<>();
    List<Op> invokes = new ArrayList<>();
    List<Integer> invokeIdx = new ArrayList<>();
    List<Op> completions = new ArrayList<>();
    List<Integer> completionIdx = new ArrayList<>();
    for (int i = 0; i < ops.size(); i++) {
      Op op = ops.get(i);
      if (op.isNemesis()) {
        nem.add(op);
        continue;
      }
      if (op.type() == Op.Type.INVOKE) {
        open.put(op.process(), invokes.size());
        invokes.add(op);
        invokeIdx.add(i);
        completions.add(null);
        completionIdx.add(-1);
        continue;
      }
      Integer id = open.remove(op.process());
      if (id == null) {
        throw new IllegalArgumentException(
            "history event " + i + " completes nothing (no open invoke for its process): " + op);
      }
      if (!invokes.get(id).f().equals(op.f())) {
        throw new IllegalArgumentException("history event " + i + " has :f " + op.f()
            + " but its invoke (event " + invokeIdx.get(id) + ") has " + invokes.get(id).f());
      }
      completions.set(id, op);
      completionIdx.set(id, i);
    }
    List<Operation> list = new ArrayList<>(invokes.size());
    for (int id = 0; id < invokes.size(); id++) {
      list.add(new Operation(id, invokes.get(id), completions.get(id), invokeIdx.get(id),
          completionIdx.get(id)));
    }
    this.operations = Collections.unmodifiableList(list);
    this.nemesis = List.copyOf(nem);
  }

  /** Builds a history from events given in order. */
  public static History of(Op... events) {
    return new History(List.of(events));
  }

  /** All events, in history order. */
  public List<Op> ops() {
    return ops;
  }

  /** Client operations (invoke paired with completion), in invoke order; {@code id} is the index. */
  public List<Operation> operations() {
    return operations;
  }

  /** The {@code :nemesis} events, in history order. */
  public List<Op> nemesis() {
    return nemesis;
  }

  /** Number of events. */
  public int size() {
    return ops.size();
  }

  @Override
  public String toString() {
    return "History[" + ops.size() + " events, " + operations.size() + " operations, "
        + nemesis.size() + " nemesis events]";
  }
}
