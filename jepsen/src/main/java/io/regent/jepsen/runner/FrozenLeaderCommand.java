package io.regent.jepsen.runner;

import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code jepsen/run frozen}: writes while the Raft leader is frozen ({@link FrozenLeaderRun}, issue #40). */
@Command(name = "frozen", mixinStandardHelpOptions = true,
    description = {"Stops the Raft leader with SIGSTOP for --pause, ROUNDS times; each time sends --stuck grants "
        + "through one follower within 0.3 s (forwarded to the frozen leader), a revoke every 40 ms through the live "
        + "nodes from the freeze on, and one more grant through the same follower 3 s after the freeze. Valid when "
        + "every late grant is acknowledged within 1 s of its send and the first revoke within 2 s of the freeze. "
        + "Writes STORE/frozen/<timestamp>/results.json and the node logs.",
        "Exit codes: 0 valid, 1 invalid, 2 unknown or crashed."})
public final class FrozenLeaderCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--nodes", defaultValue = "3", description = "3 or 5 (default: ${DEFAULT-VALUE})")
  int nodes;

  @Option(names = "--rounds", defaultValue = "3", description = "leader freezes (default: ${DEFAULT-VALUE})")
  int rounds;

  @Option(names = "--stuck", defaultValue = "6",
      description = "grants sent through the follower just after the freeze (default: ${DEFAULT-VALUE})")
  int stuck;

  @Option(names = "--pause", paramLabel = "MS", defaultValue = "6000",
      description = "how long the leader stays stopped, ms, at least 4000 (default: ${DEFAULT-VALUE})")
  long pauseMs;

  @Option(names = "--after-election", description = "bound the first revoke by 2 s from the election of the leader "
      + "that acknowledged it (in the node logs) instead of 2 s from the freeze, and send the late grant no earlier "
      + "than the first acknowledged revoke (for a machine too busy to hold an election on time)")
  boolean afterElection;

  @Mixin
  ClusterOptions cluster;

  @Override
  public Integer call() throws Exception {
    if (nodes != 3 && nodes != 5) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--nodes must be 3 or 5");
    }
    if (rounds < 1 || stuck < 0 || pauseMs < FrozenLeaderRun.LATE_AT_MS + 1_000) {
      throw new CommandLine.ParameterException(spec.commandLine(),
          "--rounds must be positive, --stuck not negative and --pause at least 4000 ms");
    }
    Map<String, Object> r = new FrozenLeaderRun(new FrozenLeaderRun.Options(nodes, rounds, stuck, pauseMs,
        !afterElection, cluster.network, cluster.store, cluster.jar)).run();
    System.out.println("frozen: " + r.get("valid?") + " (" + r.get("explanation") + ") -> " + r.get("store"));
    return switch (String.valueOf(r.get("valid?"))) {
      case "valid" -> 0;
      case "invalid" -> 1;
      default -> 2;
    };
  }
}
