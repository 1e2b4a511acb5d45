package io.regent.jepsen.runner;

import io.regent.jepsen.checker.Budget;
import io.regent.jepsen.history.EdnReader;
import io.regent.jepsen.history.History;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code jepsen/run check HISTORY}: re-checks a stored history (ours or a Knossos one). */
@Command(name = "check", mixinStandardHelpOptions = true,
    description = {"Checks a Knossos/Jepsen EDN history and prints each checker's verdict.",
        "Exit codes: 0 valid, 1 invalid, 2 unknown (a budget ran out, nothing the model reads, a "
            + "malformed or unreadable history)."})
public final class CheckCommand implements Callable<Integer> {
  @Parameters(paramLabel = "HISTORY", description = "a history.edn")
  Path history;

  @Option(names = "--model", defaultValue = "auto",
      description = "auto (from the ops' :f), election, lease-exclusivity, ledger, ownership, retry, fenced-register, "
          + "cas-register or mutex (default: ${DEFAULT-VALUE})")
  String model;

  @Option(names = "--check-time", paramLabel = "SECONDS", defaultValue = "120",
      description = "time budget of each checker, then unknown (default: ${DEFAULT-VALUE})")
  int checkTime;

  @Option(names = "--max-configs", paramLabel = "N", defaultValue = "5000000",
      description = "memoized configurations each linearizability search may keep (it bounds memory: "
          + "about 200 bytes each), then unknown (default: ${DEFAULT-VALUE})")
  long maxConfigs;

  @Override
  public Integer call() throws Exception {
    History h;
    String m;
    List<CheckOutcome> outcomes;
    if (checkTime < 0 || maxConfigs <= 0) {
      System.err.println("error: --check-time must be >= 0 and --max-configs > 0");
      return 2;
    }
    try {
      h = EdnReader.readHistory(history);
      m = model.equals("auto") ? HistoryChecks.detect(h) : model;
      outcomes = HistoryChecks.check(m, h, new Budget(Duration.ofSeconds(checkTime), maxConfigs));
    } catch (IllegalArgumentException | IOException e) {
      System.err.println("error: " + e.getMessage());
      return 2;
    }
    var verdict = CheckOutcome.overall(outcomes);
    System.out.println(history + " (" + h.operations().size() + " operations, model " + m + "): " + verdict);
    for (CheckOutcome c : outcomes) {
      System.out.println("  " + c.checker() + ": " + c.verdict() + " - " + c.explanation());
      c.anomaly().forEach(a -> System.out.println("    " + a));
    }
    return switch (verdict) {
      case VALID -> 0;
      case INVALID -> 1;
      case UNKNOWN -> 2;
    };
  }
}
