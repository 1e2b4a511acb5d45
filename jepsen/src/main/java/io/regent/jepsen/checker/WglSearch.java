package io.regent.jepsen.checker;

import io.regent.jepsen.history.Op;
import io.regent.jepsen.history.Operation;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The search for one independent sub-history. It is Wing and Gong's algorithm ("Testing and verifying
 * concurrent objects", J. Parallel and Distributed Computing 17, 1993): walk the history's call and
 * return events as a doubly linked list; at a call, try to linearize that operation (step the model,
 * lift its call and return out of the list, restart from the head); at the return of an operation not
 * yet linearized, undo the most recent choice and try the next call after it. Lowe's improvement
 * (2017) memoizes each (linearized set, model state) {@link Configuration} and never enters one twice.
 *
 * <p>Knossos's treatment of uncertain operations: an operation with an {@code :info} or missing
 * completion has no return event, so it never forces a backtrack; it may be linearized anywhere after
 * its invoke or never, and the search succeeds once every {@code :ok} operation is linearized. Among
 * open operations with the same effective op only the earliest-invoked unlinearized one is tried (they
 * are interchangeable), which keeps many identical crashed writes from multiplying the search.
 */
final class WglSearch {
  /** What one sub-history search concluded. */
  record Outcome(Verdict verdict, String explanation, List<Operation> ops, long configurations) {}

  private final List<Operation> ops;
  private final Op[] eff;
  private final boolean[] ok;
  private final int[] slot;          // index among ok ops, or among open ops
  private final int[] prevSame;      // earlier identical open op, or -1
  private final long[] zobrist;
  private final int head;
  private final int[] next;
  private final int[] prev;
  private final int[] entryOp;       // entry e belongs to op entryOp[e]; calls are even, returns odd
  private final long[] okBits;
  private final long[] openBits;
  private int okLow;
  private int okHigh = -1;
  private int openHigh = -1;
  private long setHash;
  private final boolean[] linearized;

  WglSearch(List<Operation> ops) {
    this.ops = ops;
    int n = ops.size();
    eff = new Op[n];
    ok = new boolean[n];
    slot = new int[n];
    prevSame = new int[n];
    zobrist = new long[n];
    linearized = new boolean[n];
    SplittableRandom rnd = new SplittableRandom(0x5EED);
    Map<List<Object>, Integer> lastOpen = new HashMap<>();
    int nOk = 0;
    int nOpen = 0;
    List<long[]> events = new ArrayList<>(2 * n);
    for (int i = 0; i < n; i++) {
      Operation o = ops.get(i);
      eff[i] = o.effective();
      ok[i] = o.outcome() == Operation.Outcome.OK;
      zobrist[i] = rnd.nextLong();
      events.add(new long[] {o.invokeIndex(), 2L * i});
      if (ok[i]) {
        slot[i] = nOk++;
        events.add(new long[] {o.completionIndex(), 2L * i + 1});
        prevSame[i] = -1;
      } else {
        slot[i] = nOpen++;
        List<Object> identity = Arrays.asList(eff[i].f(), eff[i].value());
        Integer before = lastOpen.put(identity, i);
        prevSame[i] = before == null ? -1 : before;
      }
    }
    events.sort((a, b) -> Long.compare(a[0], b[0]));
    head = 2 * n;
    next = new int[2 * n + 1];
    prev = new int[2 * n + 1];
    entryOp = new int[2 * n];
    int last = head;
    for (long[] ev : events) {
      int e = (int) ev[1];
      entryOp[e] = e / 2;
      next[last] = e;
      prev[e] = last;
      last = e;
    }
    next[last] = -1;
    okBits = new long[(nOk + 63) / 64];
    openBits = new long[(nOpen + 63) / 64];
  }

  /**
   * Runs the search.
   *
   * @param initial the model's initial state
   * @param deadlineNanos {@link System#nanoTime()} after which the answer is UNKNOWN
   * @param maxConfigurations configurations after which the answer is UNKNOWN
   */
  Outcome run(Model initial, long deadlineNanos, long maxConfigurations) {
    int n = ops.size();
    int remainingOk = 0;
    for (boolean b : ok) {
      remainingOk += b ? 1 : 0;
    }
    Set<Configuration> cache = new HashSet<>();
    int[] stackOp = new int[n];
    Model[] stackState = new Model[n];
    int depth = 0;
    int bestDepth = -1;
    Counterexample best = null;
    Model state = initial;
    int entry = next[head];
    long iterations = 0;
    while (remainingOk > 0) {
      if ((++iterations & 0x3FF) == 0 && System.nanoTime() - deadlineNanos > 0) {
        return unknown("time budget ran out", cache.size());
      }
      if (entry < 0) {
        throw new IllegalStateException("search reached the end with completed ops unlinearized");
      }
      int op = entryOp[entry];
      if ((entry & 1) == 0) {
        if (prevSame[op] < 0 || linearized[prevSame[op]]) {
          Model after = state.step(eff[op]);
          if (!after.isInconsistent()) {
            mark(op, true);
            if (cache.add(snapshot(after))) {
              if (cache.size() > maxConfigurations) {
                return unknown("configuration budget (" + maxConfigurations + ") ran out", cache.size());
              }
              stackOp[depth] = op;
              stackState[depth] = state;
              depth++;
              state = after;
              lift(op);
              remainingOk -= ok[op] ? 1 : 0;
              entry = next[head];
              continue;
            }
            mark(op, false);
          }
        }
        entry = next[entry];
      } else {
        if (depth > bestDepth) {
          bestDepth = depth;
          best = counterexample(depth, stackOp, state, op, entry);
        }
        if (depth == 0) {
          return new Outcome(Verdict.INVALID, best.explain(), best.involved(), cache.size());
        }
        depth--;
        int top = stackOp[depth];
        state = stackState[depth];
        mark(top, false);
        unlift(top);
        remainingOk += ok[top] ? 1 : 0;
        entry = next[2 * top];
      }
    }
    return new Outcome(Verdict.VALID, "linearizable", List.of(), cache.size());
  }

  private Outcome unknown(String why, long configurations) {
    return new Outcome(Verdict.UNKNOWN, why + " after " + configurations + " configurations",
        List.of(), configurations);
  }

  private Counterexample counterexample(int depth, int[] stackOp, Model state, int blocker, int ret) {
    List<Operation> tail = new ArrayList<>();
    for (int i = Math.max(0, depth - 5); i < depth; i++) {
      tail.add(ops.get(stackOp[i]));
    }
    List<Operation> pending = new ArrayList<>();
    for (int e = next[head]; e >= 0 && e != ret && pending.size() < 12; e = next[e]) {
      if ((e & 1) == 0) {
        pending.add(ops.get(entryOp[e]));
      }
    }
    return new Counterexample(depth, tail, state, ops.get(blocker), pending);
  }

  private void lift(int op) {
    remove(2 * op);
    if (ok[op]) {
      remove(2 * op + 1);
    }
  }

  private void unlift(int op) {
    if (ok[op]) {
      restore(2 * op + 1);
    }
    restore(2 * op);
  }

  private void remove(int e) {
    next[prev[e]] = next[e];
    if (next[e] >= 0) {
      prev[next[e]] = prev[e];
    }
  }

  private void restore(int e) {
    if (next[e] >= 0) {
      prev[next[e]] = e;
    }
    next[prev[e]] = e;
  }

  private void mark(int op, boolean on) {
    linearized[op] = on;
    setHash ^= zobrist[op];
    int s = slot[op];
    int w = s >>> 6;
    long bit = 1L << (s & 63);
    if (!ok[op]) {
      openBits[w] = on ? openBits[w] | bit : openBits[w] & ~bit;
      if (on && w > openHigh) {
        openHigh = w;
      }
      while (openHigh >= 0 && openBits[openHigh] == 0) {
        openHigh--;
      }
      return;
    }
    if (on) {
      okBits[w] |= bit;
      okHigh = Math.max(okHigh, w);
      while (okLow < okBits.length && okBits[okLow] == -1L) {
        okLow++;
      }
    } else {
      okBits[w] &= ~bit;
      okLow = Math.min(okLow, w);
      while (okHigh >= 0 && okBits[okHigh] == 0) {
        okHigh--;
      }
    }
  }

  private Configuration snapshot(Model state) {
    long[] okWords = okHigh >= okLow ? Arrays.copyOfRange(okBits, okLow, okHigh + 1) : EMPTY;
    long[] openWords = openHigh >= 0 ? Arrays.copyOf(openBits, openHigh + 1) : EMPTY;
    return new Configuration(okLow, okWords, openWords, state, setHash);
  }

  private static final long[] EMPTY = new long[0];
}
