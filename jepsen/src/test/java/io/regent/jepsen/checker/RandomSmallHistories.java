package io.regent.jepsen.checker;

import io.regent.jepsen.history.History;
import io.regent.jepsen.history.Op;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * Random small histories with arbitrary (often impossible) results, for comparing the checker with
 * {@link BruteForceOracle}: a few processes, random interleaving, each operation completing
 * {@code :ok}, {@code :fail}, {@code :info}, or not at all.
 */
final class RandomSmallHistories {
  private RandomSmallHistories() {
  }

  /** A proposed operation: its :f, the invoke value, and the value an :ok completion reports. */
  record Proposal(String f, Object invokeValue, Object okValue, Object key) {}

  static History generate(SplittableRandom rnd, int operations, int processes,
      Function<SplittableRandom, Proposal> propose) {
    List<Op> events = new ArrayList<>();
    Proposal[] pending = new Proposal[processes];
    long[] process = new long[processes];
    for (int i = 0; i < processes; i++) {
      process[i] = i;
    }
    long nextProcess = processes;
    int started = 0;
    while (started < operations || anyPending(pending)) {
      int i = rnd.nextInt(processes);
      if (pending[i] == null) {
        if (started == operations) {
          continue;
        }
        started++;
        pending[i] = propose.apply(rnd);
        events.add(Op.invoke(process[i], pending[i].f(), pending[i].invokeValue())
            .withKey(pending[i].key()));
        continue;
      }
      Proposal p = pending[i];
      int outcome = rnd.nextInt(10);
      if (outcome < 6) {
        events.add(Op.ok(process[i], p.f(), p.okValue()).withKey(p.key()));
      } else if (outcome < 8) {
        events.add(Op.fail(process[i], p.f(), p.invokeValue()).withKey(p.key()));
      } else if (outcome < 9) {
        events.add(Op.info(process[i], p.f(), p.invokeValue()).withKey(p.key()));
        process[i] = nextProcess++;
      } else {
        process[i] = nextProcess++; // never completes
      }
      pending[i] = null;
    }
    return new History(events);
  }

  private static boolean anyPending(Proposal[] pending) {
    for (Proposal p : pending) {
      if (p != null) {
        return true;
      }
    }
    return false;
  }
}
