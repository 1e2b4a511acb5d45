package io.regent.server.rpc;

/**
 * The admission lane of a public API method (docs/architecture.md §7.2), declared per method in
 * {@link MethodRules}. A node that is saturated sheds bulk calls; it never sheds the priority lane, whose calls
 * keep or give back what a client holds (a lease that is not renewed expires, and its holder campaigns again:
 * shedding them would add load, not remove it), answer a health check, or change the membership an operator
 * needs to mend the cluster.
 */
public enum Lane {
  /** Keepalives, Revoke, Resign, Unlock, Group Leave and Release, health checks, membership changes. */
  PRIORITY,
  /** Everything else: reads, grants, campaigns, locks, streams, snapshots. */
  BULK
}
