package io.regent.jepsen.runner;

import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code jepsen/run overload}: keepalives under a flood of reads and campaigns ({@link OverloadRun}). */
@Command(name = "overload", mixinStandardHelpOptions = true,
    description = {"Holders renew leases every TTL/3 while flood threads send reads and campaigns back to back "
        + "to a cluster started with a low --max-bulk-calls; counts spurious expiries (a lease renewed in time "
        + "that the cluster reported gone; must be 0) and the flood's RESOURCE_EXHAUSTED refusals (allowed). "
        + "--negative-control starts the nodes with --unsafe-no-priority-lanes: it must be invalid, and is "
        + "unknown when it shows no spurious expiry. Writes STORE/overload-<N>n[-negative-control]/<timestamp>/ "
        + "history.edn, results.json and the node logs.",
        "Exit codes: 0 valid, 1 invalid, 2 unknown or crashed."})
public final class OverloadCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--nodes", defaultValue = "3", description = "3 or 5 (default: ${DEFAULT-VALUE})")
  int nodes;

  @Option(names = "--time-limit", paramLabel = "SECONDS", defaultValue = "30",
      description = "how long the holders and the flood run (default: ${DEFAULT-VALUE})")
  int seconds;

  @Option(names = "--ttl", paramLabel = "MS", defaultValue = "3000", description = "holders' lease TTL (default: ${DEFAULT-VALUE})")
  long ttlMs;

  @Option(names = "--holders", defaultValue = "50", description = "leases kept at once (default: ${DEFAULT-VALUE})")
  int holders;

  @Option(names = "--flood", paramLabel = "THREADS", defaultValue = "128",
      description = "flood threads (default: ${DEFAULT-VALUE})")
  int floodThreads;

  @Option(names = "--max-bulk-calls", paramLabel = "N", defaultValue = "8",
      description = "the nodes' --max-bulk-calls (default: ${DEFAULT-VALUE})")
  int maxBulkCalls;

  @Option(names = "--negative-control",
      description = "start the nodes with --unsafe-no-priority-lanes: the run must be invalid")
  boolean negativeControl;

  @Mixin
  ClusterOptions cluster;

  @Override
  public Integer call() throws Exception {
    if (nodes != 3 && nodes != 5) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--nodes must be 3 or 5");
    }
    if (seconds < 1 || ttlMs < 3 || holders < 1 || floodThreads < 0 || maxBulkCalls < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(),
          "--time-limit, --ttl, --holders and --max-bulk-calls must be positive, --flood not negative");
    }
    Map<String, Object> r = new OverloadRun(this).run();
    System.out.println("overload: " + r.get("valid?") + " (" + r.get("explanation") + ") -> " + r.get("store"));
    return switch (String.valueOf(r.get("valid?"))) {
      case "valid" -> 0;
      case "invalid" -> 1;
      default -> 2;
    };
  }
}
