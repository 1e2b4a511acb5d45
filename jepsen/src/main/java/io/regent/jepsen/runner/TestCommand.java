package io.regent.jepsen.runner;

import io.regent.jepsen.nemesis.NemesisScheduler;
import io.regent.jepsen.workload.Workloads;
import io.regent.server.placement.Placement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code jepsen/run test}: one run; prints the verdict and the store directory. */
@Command(name = "test", mixinStandardHelpOptions = true,
    description = {"Starts a Regent cluster, runs clients and faults for the time limit, heals, reads, "
        + "checks; writes history.edn, results.edn/json, timeline.html, latency.png, rate.png and the "
        + "node logs under STORE/<test>/<timestamp>/.",
        "Exit codes: 0 valid, 1 invalid, 2 unknown or crashed."})
public final class TestCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--workload", defaultValue = "election",
      description = "election, lease-exclusivity, ledger, ownership, retry or etcdctl-lock (etcd's etcdctl lock "
          + "on the nodes' etcd ports; not with --target single-writer) (default: ${DEFAULT-VALUE})")
  String workload;

  @Option(names = "--nodes", defaultValue = "3", description = "3 or 5 (default: ${DEFAULT-VALUE})")
  int nodes;

  @Option(names = "--cells", defaultValue = "1",
      description = "cells of the cluster (regent server --cells); election, lease-exclusivity and ownership then "
          + "place their names in every cell (default: ${DEFAULT-VALUE})")
  int cells;

  @Option(names = "--time-limit", paramLabel = "SECONDS", defaultValue = "60",
      description = "how long the clients run (default: ${DEFAULT-VALUE})")
  int timeLimit;

  @Option(names = "--nemesis", paramLabel = "F[,F...]", defaultValue = "",
      description = "faults: kill, pause, partition, client-pause, leader, leader-churn, client-isolate, "
          + "pause-serving, in any "
          + "combination; none by default")
  String nemesis;

  @Option(names = "--concurrency", defaultValue = "5", description = "client processes (default: ${DEFAULT-VALUE})")
  int concurrency;

  @Option(names = "--negative-control",
      description = "start the servers with --unsafe-local-grants (grants without Raft; for ownership: "
          + "--unsafe-skip-release, moves before the release; for retry: --unsafe-cleanup-any-attempt, a cancel's "
          + "cleanup acting on any attempt): the run must be invalid")
  boolean negativeControl;

  @Option(names = "--try-campaign",
      description = "campaign with the non-blocking tryCampaign instead of a blocking campaign under the "
          + "operation deadline (its 'not elected' is not final: see jepsen/README.md)")
  boolean tryCampaign;

  @Option(names = "--target", defaultValue = "cluster",
      description = "cluster, or single-writer (one `regent server --single-writer`) (default: ${DEFAULT-VALUE})")
  String target;

  @Mixin
  ClusterOptions cluster;

  @Option(names = "--ttl", paramLabel = "MS", defaultValue = "3000", description = "lease TTL (default: ${DEFAULT-VALUE})")
  long ttlMs;

  @Option(names = "--op-timeout", paramLabel = "MS", defaultValue = "5000",
      description = "deadline of one operation; then :info and the process retires (default: ${DEFAULT-VALUE})")
  long opTimeoutMs;

  @Option(names = "--seed", description = "random seed (default: the clock)")
  Long seed;

  @Option(names = "--check-time", paramLabel = "SECONDS", defaultValue = "120",
      description = "time budget of each checker, then :unknown (default: ${DEFAULT-VALUE})")
  int checkTime;

  @Option(names = "--recovery-timeout", paramLabel = "SECONDS", defaultValue = "60",
      description = "how long to wait for the healed cluster (default: ${DEFAULT-VALUE})")
  int recoveryTimeout;

  @Override
  public Integer call() throws Exception {
    RunOptions options = options();
    TestRun.RunOutcome out = new TestRun(options).run();
    System.out.println(out.summary());
    return out.exitCode();
  }

  RunOptions options() {
    if (!Workloads.NAMES.contains(workload)) {
      throw usage("--workload must be one of " + Workloads.NAMES);
    }
    boolean singleWriter = switch (target) {
      case "cluster" -> false;
      case "single-writer" -> true;
      default -> throw usage("--target must be cluster or single-writer");
    };
    if (singleWriter && workload.equals("etcdctl-lock")) {
      throw usage("--workload etcdctl-lock needs the nodes' etcd ports, which --target single-writer has not");
    }
    if (cells != 1 && (singleWriter || !Workloads.OVER_CELLS.contains(workload))) {
      throw usage("--cells applies to a cluster and to the workloads " + Workloads.OVER_CELLS);
    }
    if (cells < 1 || cells > Placement.MAX_CELLS) {
      throw usage("--cells must be 1.." + Placement.MAX_CELLS);
    }
    if (!singleWriter && nodes != 3 && nodes != 5) {
      throw usage("--nodes must be 3 or 5");
    }
    if (timeLimit < 1 || concurrency < 1 || ttlMs < 1 || opTimeoutMs < 1) {
      throw usage("--time-limit, --concurrency, --ttl and --op-timeout must be positive");
    }
    List<String> faults = new ArrayList<>();
    for (String f : nemesis.split(",")) {
      String t = f.trim();
      if (t.isEmpty() || t.equals("none")) {
        continue;
      }
      if (!NemesisScheduler.FAULTS.contains(t)) {
        throw usage("unknown nemesis '" + t + "'; one of " + NemesisScheduler.FAULTS);
      }
      if (!faults.contains(t)) {
        faults.add(t);
      }
    }
    return new RunOptions(workload, nodes, Duration.ofSeconds(timeLimit), faults, concurrency, negativeControl,
        singleWriter, cluster.network, ttlMs, Duration.ofMillis(opTimeoutMs), cluster.store, cluster.jar,
        seed != null ? seed : System.currentTimeMillis(), Duration.ofSeconds(checkTime),
        Duration.ofSeconds(recoveryTimeout), tryCampaign, cells);
  }

  private CommandLine.ParameterException usage(String message) {
    return new CommandLine.ParameterException(spec.commandLine(), message);
  }
}
