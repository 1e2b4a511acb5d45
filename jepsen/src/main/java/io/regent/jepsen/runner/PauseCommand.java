package io.regent.jepsen.runner;

import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code jepsen/run pause}: the leader-pause check ({@link PauseCheck}); prints the verdict line. */
@Command(name = "pause", mixinStandardHelpOptions = true,
    description = {"Keeps leases alive through every node while the Raft leader is SIGSTOPped for 3 TTLs, "
        + "ROUNDS times; counts spurious expiries (within one TTL of the last acknowledged keepalive; must be 0), "
        + "expiries and client step-downs (all must be 0) and client suspensions (allowed: a keeper without an "
        + "acknowledgement for 2/3 TTL stops acting until a renewal is acknowledged, as regent lock does). "
        + "Writes STORE/pause/<timestamp>/results.json and the node logs.",
        "Exit codes: 0 valid, 1 invalid, 2 unknown or crashed."})
public final class PauseCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--nodes", defaultValue = "3", description = "3 or 5 (default: ${DEFAULT-VALUE})")
  int nodes;

  @Option(names = "--ttl", paramLabel = "MS", defaultValue = "1800",
      description = "lease TTL, ms (default: ${DEFAULT-VALUE}, the earlier runs' minimum; the servers' minimum is "
          + "1.5 x their maximum election timeout, 1 350 ms by default)")
  long ttlMs;

  @Option(names = "--rounds", defaultValue = "3", description = "leader pauses (default: ${DEFAULT-VALUE})")
  int rounds;

  @Option(names = "--leases-per-node", defaultValue = "2",
      description = "leases kept by the client that starts at each node (default: ${DEFAULT-VALUE})")
  int leasesPerNode;

  @Option(names = "--no-suspend", negatable = false,
      description = "keepers step down at 2/3 TTL without an acknowledgement instead of suspending (the rule "
          + "before suspension; fails when a failover takes longer than that)")
  boolean noSuspend;

  @Mixin
  ClusterOptions cluster;

  @Override
  public Integer call() throws Exception {
    if (nodes != 3 && nodes != 5) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--nodes must be 3 or 5");
    }
    if (ttlMs < 1 || rounds < 1 || leasesPerNode < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(),
          "--ttl, --rounds and --leases-per-node must be positive");
    }
    Map<String, Object> r = new PauseCheck(nodes, ttlMs, rounds, leasesPerNode, cluster.network, cluster.store,
        cluster.jar, !noSuspend).run();
    System.out.println("pause: " + r.get("valid?") + " (" + r.get("explanation") + ") -> " + r.get("store"));
    return switch (String.valueOf(r.get("valid?"))) {
      case "valid" -> 0;
      case "invalid" -> 1;
      default -> 2;
    };
  }
}
