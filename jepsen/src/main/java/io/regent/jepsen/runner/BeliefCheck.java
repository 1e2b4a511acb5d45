package io.regent.jepsen.runner;

import io.regent.jepsen.checker.Verdict;
import io.regent.jepsen.history.EdnWriter;
import io.regent.jepsen.history.Keyword;
import io.regent.jepsen.history.History;
import io.regent.jepsen.history.Op;
import io.regent.jepsen.history.Operation;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * No linearizable read contradicts a holder's belief: every {@code :read} of a name that was invoked
 * and completed inside a client's belief interval for that name ({@code :held [start end]} of its
 * {@code :release}) must return that client's token.
 *
 * <p>Why this must hold in a correct cluster: the belief starts when the elected answer arrives (the
 * grant has applied), and ends before the client sends its resign and before its own step-down
 * deadline, which comes earlier than any expiry the leader may decide (docs/architecture.md §3.6); so throughout the
 * interval the replicated state names this client as holder, and a linearizable read, which sees the
 * state at some instant inside its own invoke–completion span, must see it too. {@code FencedRegister}
 * alone cannot see a read of nil there (it allows nil because leases expire without ops); this check
 * can, and it needs no search.
 */
final class BeliefCheck {
  private BeliefCheck() {
  }

  private record Belief(Object key, Long token, long start, long end, Op source) {
  }

  static CheckOutcome check(History h) {
    List<Belief> beliefs = new ArrayList<>();
    for (Op op : h.ops()) {
      Object held = op.extra().get(Keyword.of("held"));
      if (!op.isNemesis() && op.type() == Op.Type.OK && held instanceof List<?> l && l.size() == 2
          && op.value() instanceof Long t) {
        beliefs.add(new Belief(op.key(), t, (Long) l.get(0), (Long) l.get(1), op));
      }
    }
    List<Operation> reads = new ArrayList<>();
    for (Operation o : h.operations()) {
      if (o.f().name().equals("read") && o.outcome() == Operation.Outcome.OK
          && o.invoke().time() != null && o.completion().time() != null) {
        reads.add(o);
      }
    }
    reads.sort(Comparator.comparingLong(o -> o.invoke().time()));
    long[] starts = reads.stream().mapToLong(o -> o.invoke().time()).toArray();
    int checked = 0;
    for (Belief b : beliefs) {
      for (int i = lowerBound(starts, b.start()); i < reads.size() && starts[i] <= b.end(); i++) {
        Operation r = reads.get(i);
        if (!Objects.equals(r.key(), b.key()) || r.completion().time() > b.end()) {
          continue;
        }
        checked++;
        if (!Objects.equals(r.completion().value(), b.token())) {
          String why = "client " + HistoryChecks.client(b.source().process()) + " believed it held " + EdnWriter.writeValue(b.key())
              + " with token " + b.token() + " from " + b.start() + " to " + b.end() + " ns, but process "
              + r.process() + " read " + EdnWriter.writeValue(r.completion().value()) + " inside that interval";
          return new CheckOutcome("belief", Verdict.INVALID, why, stats(beliefs, checked),
              List.of(EdnWriter.writeOp(b.source()), EdnWriter.writeOp(r.invoke()) + " -> "
                  + EdnWriter.writeOp(r.completion())));
        }
      }
    }
    return new CheckOutcome("belief", Verdict.VALID, checked + " reads inside " + beliefs.size()
        + " belief intervals all returned the believer's token", stats(beliefs, checked), List.of());
  }

  private static Map<String, Object> stats(List<Belief> beliefs, int checked) {
    return Map.of("intervals", (long) beliefs.size(), "reads-inside", (long) checked);
  }

  private static int lowerBound(long[] a, long v) {
    int lo = 0;
    int hi = a.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (a[mid] < v) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}
