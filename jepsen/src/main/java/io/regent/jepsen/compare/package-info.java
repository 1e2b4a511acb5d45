/**
 * {@code regent compare}: Regent (3 and 5 nodes), Regent's single-writer mode and a 3-node etcd, started
 * one after the other on this machine and measured with the same clients ({@code regent bench}'s {@code
 * Target}s and the Jepsen workloads): cost, the per-key ceiling, failover, availability under faults,
 * the zombie writer and the Jepsen verdicts; written to one JSON file, a markdown table and PNG plots.
 * Lives here because it drives this module's clusters, network namespaces and test runs.
 */
package io.regent.jepsen.compare;
