package io.regent.jepsen.bench;

import io.regent.jepsen.checker.Budget;
import io.regent.jepsen.checker.CasRegister;
import io.regent.jepsen.checker.LinearizabilityChecker;
import io.regent.jepsen.checker.Result;
import io.regent.jepsen.history.History;
import java.time.Duration;

/**
 * A benchmark (not a test) of the linearizability checker: generates a random valid cas-register
 * history with {@link RandomCasHistory} and times the check. Run with
 * {@code java -cp jepsen/target/classes io.regent.jepsen.bench.CheckerBench [operations]
 * [concurrency] [crashRate] [seed]}; defaults 10000 operations, concurrency 5, no crashes.
 */
public final class CheckerBench {
  private CheckerBench() {
  }

  /** Generates, checks, and prints the verdict and timings (one warm-up run, then three timed). */
  public static void main(String[] args) {
    int operations = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int concurrency = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    double crashRate = args.length > 2 ? Double.parseDouble(args[2]) : 0.0;
    long seed = args.length > 3 ? Long.parseLong(args[3]) : 42;
    History h = RandomCasHistory.generate(operations, concurrency, 5, crashRate, seed);
    LinearizabilityChecker checker =
        new LinearizabilityChecker(CasRegister.initial(), Budget.ofTime(Duration.ofMinutes(5)));
    System.out.printf("history: %d operations (%d events), concurrency %d, crash rate %.3f, seed %d%n",
        h.operations().size(), h.size(), concurrency, crashRate, seed);
    Result warm = checker.check(h);
    System.out.printf("warm-up: %s in %d ms%n", warm.verdict(), warm.elapsed().toMillis());
    for (int run = 1; run <= 3; run++) {
      Result r = checker.check(h);
      System.out.printf("run %d: %s in %d ms, %d configurations%n", run, r.verdict(),
          r.elapsed().toMillis(), r.configurations());
    }
  }
}
