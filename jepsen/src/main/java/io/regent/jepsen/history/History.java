package io.regent.jepsen.history;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An ordered Jepsen/Knossos history. The order of the events is the real-time order (the order in
 * which the test recorded them), as in Knossos; {@code :time} is informational.
 *
 * <p>Client events are paired per process: each {@code :invoke} with the next completion ({@code :ok},
 * {@code :fail} or {@code :info}) of the same process. An {@code :info} completion, or no completion
 * at all, leaves the operation open until the end of the history: it may or may not have taken effect.
 * Jepsen retires a process after an {@code :info}, so a process that invokes again while one of its
 * operations is open (completed {@code :info} or not at all) makes the history malformed, and so does a
 * {@code :fail} whose value is not its invoke's (a failed operation did nothing, so both describe the
 * same request): Knossos refuses both ({@code knossos.history/complete}), and so does this class.
 * Events of the {@code :nemesis} process are kept in {@link #ops()} and {@link #nemesis()} but take no
 * part in pairing.
 */
public final class History {
  private final List<Op> ops;
  private final List<Operation> operations;
  private final List<Op> nemesis;

  /**
   * Builds and pairs a history.
   *
   * @throws MalformedHistoryException if a client completion has no open invoke in its process or
   *     names a different {@code :f} than its invoke, if a process invokes while an operation of its
   *     own is open (also after an {@code :info}), or if a {@code :fail} carries another value than
   *     its invoke
   */
  public History(List<Op> events) {
    this.ops = List.copyOf(events);
    List<Op> nem = new ArrayList<>();
    Map<Long, Integer> open = new HashMap<>();
    Map<Long, Integer> retired = new HashMap<>();
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
        Integer running = open.containsKey(op.process()) ? open.get(op.process()) : retired.get(op.process());
        if (running != null) {
          throw new MalformedHistoryException("event " + i + " " + op + ": process " + op.process()
              + " is still running event " + invokeIdx.get(running) + " " + invokes.get(running)
              + (completions.get(running) == null ? "" : ", which ended :info (its process is retired)"));
        }
        open.put(op.process(), invokes.size());
        invokes.add(op);
        invokeIdx.add(i);
        completions.add(null);
        completionIdx.add(-1);
        continue;
      }
      Integer id = open.remove(op.process());
      if (id == null) {
        throw new MalformedHistoryException(
            "event " + i + " completes nothing (no open invoke for its process): " + op);
      }
      Op invoke = invokes.get(id);
      if (!invoke.f().equals(op.f())) {
        throw new MalformedHistoryException("event " + i + " has :f " + op.f()
            + " but its invoke (event " + invokeIdx.get(id) + ") has " + invoke.f());
      }
      if (op.type() == Op.Type.FAIL && !Objects.equals(invoke.value(), op.value())) {
        throw new MalformedHistoryException("event " + i + " is a :fail with value "
            + EdnWriter.writeValue(op.value()) + " but its invoke (event " + invokeIdx.get(id)
            + ") has value " + EdnWriter.writeValue(invoke.value()));
      }
      if (op.type() == Op.Type.INFO) {
        retired.put(op.process(), id);
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
