package io.regent.jepsen.runner;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Everything one {@code jepsen/run test} needs.
 *
 * @param workload one of {@code Workloads.NAMES}
 * @param nodes 3 or 5 (ignored for the single-writer target, which has one)
 * @param timeLimit how long clients run
 * @param nemesis fault kinds (empty: none)
 * @param concurrency logical client processes
 * @param negativeControl start the servers with the workload's unsafe switch ({@code
 *     Workloads.negativeControlFlag}), or for etcdctl-lock its clients' control: must come out invalid
 * @param singleWriter target {@code regent server --single-writer} instead of a Raft cluster
 * @param network auto, netns or loopback
 * @param ttlMs lease TTL of every client
 * @param opTimeout deadline of one client operation (then {@code :info})
 * @param storeRoot {@code jepsen/store}
 * @param jar {@code cli/target/regent.jar}
 * @param seed random seed (client and nemesis choices)
 * @param checkBudget time limit of each checker (then {@code :unknown})
 * @param recoveryTimeout how long to wait for the healed cluster before the final reads
 * @param tryCampaign campaign with the non-blocking tryCampaign instead of a bounded blocking campaign
 * @param cells the cluster's cells ({@code regent server --cells}, 1..{@code Placement.MAX_CELLS}): the workloads of
 *     {@code Workloads.OVER_CELLS} spread their names over them
 */
public record RunOptions(String workload, int nodes, Duration timeLimit, List<String> nemesis,
    int concurrency, boolean negativeControl, boolean singleWriter, String network, long ttlMs,
    Duration opTimeout, Path storeRoot, Path jar, long seed, Duration checkBudget,
    Duration recoveryTimeout, boolean tryCampaign, int cells) {

  /** Copies the fault list. */
  public RunOptions {
    nemesis = List.copyOf(nemesis);
  }

  /** The test's name, the first level under the store: e.g. {@code election-3n-kill+pause}. */
  public String testName() {
    String faults = nemesis.isEmpty() ? "none" : String.join("+", nemesis);
    return workload + "-" + (singleWriter ? "single-writer" : nodes + "n") + "-" + faults
        + (cells > 1 ? "-" + cells + "cells" : "") + (tryCampaign ? "-try-campaign" : "")
        + (negativeControl ? "-negative-control" : "");
  }
}
