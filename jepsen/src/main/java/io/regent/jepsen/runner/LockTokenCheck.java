package io.regent.jepsen.runner;

import io.regent.jepsen.checker.Verdict;
import io.regent.jepsen.history.EdnWriter;
import io.regent.jepsen.history.History;
import io.regent.jepsen.history.Keyword;
import io.regent.jepsen.history.Op;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The etcdctl-lock workload's token check: a lock's fencing tokens (the revisions etcdctl passes its command) grow
 * from hold to hold. Each {@code :release} carries its hold's token and {@code :held [start end]}; taken in the
 * order the holds began, a lock's tokens must strictly increase, or a resource fenced by them would take the later
 * holder's writes for stale ones (or a stale holder's for current ones).
 */
final class LockTokenCheck {
  private LockTokenCheck() {
  }

  static CheckOutcome check(History h) {
    Map<String, List<Op>> holds = new HashMap<>();
    for (Op op : h.ops()) {
      Object held = op.extra().get(Keyword.of("held"));
      if (!op.isNemesis() && op.type() == Op.Type.OK && op.f().name().equals("release")
          && held instanceof List<?> l && l.size() == 2 && op.value() instanceof Long) {
        holds.computeIfAbsent(String.valueOf(op.key()), k -> new ArrayList<>()).add(op);
      }
    }
    int count = 0;
    for (Map.Entry<String, List<Op>> e : holds.entrySet()) {
      List<Op> ops = e.getValue();
      ops.sort(Comparator.comparingLong(LockTokenCheck::start));
      count += ops.size();
      for (int i = 1; i < ops.size(); i++) {
        long before = (Long) ops.get(i - 1).value();
        long after = (Long) ops.get(i).value();
        if (after <= before) {
          return new CheckOutcome("lock-tokens", Verdict.INVALID, "lock " + e.getKey() + " was held with token "
              + after + " after a hold with token " + before + ": a lock's tokens must grow from hold to hold",
              Map.of("holds", (long) count), List.of(EdnWriter.writeOp(ops.get(i - 1)),
                  EdnWriter.writeOp(ops.get(i))));
        }
      }
    }
    Verdict v = count == 0 ? Verdict.UNKNOWN : Verdict.VALID;
    String why = count == 0 ? "no hold ended: no token to compare"
        : "each lock's tokens grew from hold to hold (" + count + " holds)";
    return new CheckOutcome("lock-tokens", v, why, Map.of("holds", (long) count), List.of());
  }

  private static long start(Op op) {
    return (Long) ((List<?>) op.extra().get(Keyword.of("held"))).get(0);
  }
}
