package io.regent.jepsen.bench;

import io.regent.jepsen.history.History;
import io.regent.jepsen.history.Op;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Generates cas-register histories that are linearizable by construction: each operation takes
 * effect on a simulated register at a random moment strictly between its invoke and its completion.
 * Processes advance in a random interleaving (invoke, then take effect, then complete), so up to
 * {@code concurrency} operations overlap. A crashed operation (probability {@code crashRate}) is
 * completed {@code :info} and may or may not have taken effect; its process is retired and replaced
 * by a new process number, as Jepsen does.
 */
public final class RandomCasHistory {
  private RandomCasHistory() {
  }

  /**
   * Generates a history.
   *
   * @param operations number of operations (each is an invoke plus a completion)
   * @param concurrency number of concurrently active processes
   * @param values register values are drawn from {@code 0..values-1}
   * @param crashRate probability that an operation is completed {@code :info}
   * @param seed random seed
   */
  public static History generate(int operations, int concurrency, int values, double crashRate,
      long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    List<Op> events = new ArrayList<>(2 * operations);
    long[] process = new long[concurrency];
    Op[] pending = new Op[concurrency];
    boolean[] applied = new boolean[concurrency];
    Object[] result = new Object[concurrency];
    boolean[] success = new boolean[concurrency];
    for (int i = 0; i < concurrency; i++) {
      process[i] = i;
    }
    long nextProcess = concurrency;
    Object register = null;
    int started = 0;
    int done = 0;
    long time = 0;
    while (done < operations) {
      int i = rnd.nextInt(concurrency);
      time += 1 + rnd.nextInt(1000);
      if (pending[i] == null) {
        if (started == operations) {
          continue;
        }
        started++;
        pending[i] = randomInvoke(rnd, process[i], values).withTime(time);
        applied[i] = false;
        events.add(pending[i]);
      } else if (!applied[i]) {
        Op inv = pending[i];
        applied[i] = true;
        switch (inv.f().name()) {
          case "read" -> {
            result[i] = register;
            success[i] = true;
          }
          case "write" -> {
            register = inv.value();
            result[i] = inv.value();
            success[i] = true;
          }
          default -> {
            List<?> pair = (List<?>) inv.value();
            success[i] = Objects.equals(register, pair.get(0));
            if (success[i]) {
              register = pair.get(1);
            }
            result[i] = inv.value();
          }
        }
      } else {
        Op inv = pending[i];
        if (rnd.nextDouble() < crashRate) {
          events.add(Op.info(process[i], inv.f().name(), inv.value()).withTime(time));
          process[i] = nextProcess++;
        } else if (success[i]) {
          events.add(Op.ok(process[i], inv.f().name(), result[i]).withTime(time));
        } else {
          events.add(Op.fail(process[i], inv.f().name(), inv.value()).withTime(time));
        }
        pending[i] = null;
        done++;
      }
    }
    return new History(events);
  }

  private static Op randomInvoke(SplittableRandom rnd, long process, int values) {
    int kind = rnd.nextInt(10);
    if (kind < 4) {
      return Op.invoke(process, "read", null);
    }
    if (kind < 7) {
      return Op.invoke(process, "write", (long) rnd.nextInt(values));
    }
    return Op.invoke(process, "cas", List.of((long) rnd.nextInt(values), (long) rnd.nextInt(values)));
  }
}
