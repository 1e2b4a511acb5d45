package io.regent.jepsen.runner;

import io.regent.jepsen.workload.MixedWrites;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code jepsen/run restart}: the restart run ({@link RestartRun}, issue #40); prints the verdict line. */
@Command(name = "restart", mixinStandardHelpOptions = true,
    description = {"Kills one random node at a time with kill -9 (half the time 0-500 ms after one of its "
        + "snapshots, else at random) under a mixed write load (campaigns with a TTL, grants with a lock, revokes, "
        + "spread over the nodes), restarts it 2 s later, and checks that it reaches the others' commit index within "
        + "--bound of answering again and that no acknowledged write is lost. Writes "
        + "STORE/restart/<timestamp>/results.json and the node logs.",
        "Exit codes: 0 valid, 1 invalid, 2 unknown or crashed."})
public final class RestartCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--nodes", defaultValue = "3", description = "3 or 5 (default: ${DEFAULT-VALUE})")
  int nodes;

  @Option(names = "--time-limit", paramLabel = "SECONDS", defaultValue = "600",
      description = "stop killing after this long, at most 3300 (the leases' TTL less a margin) (default: "
          + "${DEFAULT-VALUE})")
  long seconds;

  @Option(names = "--kills", defaultValue = "1000", description = "stop after this many kills (default: ${DEFAULT-VALUE})")
  int kills;

  @Option(names = "--workers", defaultValue = "24", description = "writing clients (default: ${DEFAULT-VALUE})")
  int workers;

  @Option(names = "--snapshot-threshold", paramLabel = "N", defaultValue = "2000",
      description = "entries between the nodes' snapshots (default: ${DEFAULT-VALUE}; the product's is 10000)")
  long snapshotThreshold;

  @Option(names = "--bound", paramLabel = "SECONDS", defaultValue = "10",
      description = "how long a restarted node may take, once it answers, to reach the commit index the others had "
          + "then (default: ${DEFAULT-VALUE})")
  long boundSeconds;

  @Option(names = "--watch", paramLabel = "SECONDS", defaultValue = "60",
      description = "how long a late node is watched after the bound, to see whether it catches up by itself "
          + "(default: ${DEFAULT-VALUE})")
  long watchSeconds;

  @Option(names = "--keep-going", description = "go on after a late restart (default: stop at the first)")
  boolean keepGoing;

  @Option(names = "--seed", defaultValue = "40", description = "the victims and timings (default: ${DEFAULT-VALUE})")
  long seed;

  @Option(names = "--server-arg", paramLabel = "ARG",
      description = "an extra argument for every `regent server` (repeatable)")
  List<String> serverArgs = new ArrayList<>();

  @Option(names = "--server-jvm-arg", paramLabel = "ARG",
      description = "an extra option for every server's JVM (repeatable), e.g. "
          + "-Draft.server.log.appender.retry.policy=1ms,10,1s,20,5s,1000 (Ratis's default: the A/B control)")
  List<String> serverJvmArgs = new ArrayList<>();

  @Mixin
  ClusterOptions cluster;

  @Override
  public Integer call() throws Exception {
    if (nodes != 3 && nodes != 5) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--nodes must be 3 or 5");
    }
    if (seconds > MixedWrites.LONGEST_RUN_S) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--time-limit must be at most "
          + MixedWrites.LONGEST_RUN_S + " s: longer, the load's leases (TTL 1 h) could expire before the check");
    }
    if (seconds < 1 || kills < 1 || workers < 1 || snapshotThreshold < 1 || boundSeconds < 1 || watchSeconds < 0) {
      throw new CommandLine.ParameterException(spec.commandLine(),
          "--time-limit, --kills, --workers, --snapshot-threshold and --bound must be positive, --watch not negative");
    }
    Map<String, Object> r = new RestartRun(new RestartRun.Options(nodes, Duration.ofSeconds(seconds), kills, workers,
        snapshotThreshold, boundSeconds * 1000, watchSeconds * 1000, !keepGoing, seed, cluster.network, cluster.store,
        cluster.jar, serverArgs, serverJvmArgs)).run();
    System.out.println("restart: " + r.get("valid?") + " after " + r.get("kills") + " kills (" + r.get("explanation")
        + ") -> " + r.get("store"));
    return switch (String.valueOf(r.get("valid?"))) {
      case "valid" -> 0;
      case "invalid" -> 1;
      default -> 2;
    };
  }
}
