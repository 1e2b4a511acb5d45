package io.regent.server.limits;

import io.grpc.MethodDescriptor;
import io.grpc.health.v1.HealthGrpc;
import io.regent.api.v1.ClusterGrpc;
import io.regent.api.v1.ElectionGrpc;
import io.regent.api.v1.GroupGrpc;
import io.regent.api.v1.LeaseGrpc;
import io.regent.api.v1.LockGrpc;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The admission lane of a public API method (docs/architecture.md §7.2). A node that is saturated sheds bulk
 * calls; it never sheds the priority lane, whose calls keep or give back what a client holds (a lease that is not
 * renewed expires, and its holder campaigns again: shedding them would add load, not remove it), answer a health
 * check, or change the membership an operator needs to mend the cluster.
 */
public enum Lane {
  /** Keepalives, Revoke, Resign, Unlock, Group Leave and Release, health checks, membership changes. */
  PRIORITY,
  /** Everything else: reads, grants, campaigns, locks, streams, snapshots. */
  BULK;

  private static final Set<String> KEEPALIVES = names(LeaseGrpc.getKeepAliveMethod(),
      LeaseGrpc.getKeepAliveManyMethod(), LeaseGrpc.getKeepAliveStreamMethod());

  private static final Set<String> PRIORITY_METHODS = Stream.concat(KEEPALIVES.stream(), names(
      LeaseGrpc.getRevokeMethod(), ElectionGrpc.getResignMethod(), LockGrpc.getUnlockMethod(),
      GroupGrpc.getLeaveMethod(), GroupGrpc.getReleaseMethod(), HealthGrpc.getCheckMethod(),
      HealthGrpc.getWatchMethod(), ClusterGrpc.getMemberListMethod(), ClusterGrpc.getMemberAddMethod(),
      ClusterGrpc.getMemberPromoteMethod(), ClusterGrpc.getMemberRemoveMethod(),
      ClusterGrpc.getTransferLeadershipMethod()).stream()).collect(Collectors.toUnmodifiableSet());

  /** The lane of the method named {@code fullMethodName} ({@code package.Service/Method}). */
  public static Lane of(String fullMethodName) {
    return PRIORITY_METHODS.contains(fullMethodName) ? PRIORITY : BULK;
  }

  /**
   * Whether the method renews leases (KeepAlive, KeepAliveMany, KeepAliveStream): the per-identity request rate
   * does not count them, since an identity's live leases bound them already.
   */
  public static boolean isKeepAlive(String fullMethodName) {
    return KEEPALIVES.contains(fullMethodName);
  }

  private static Set<String> names(MethodDescriptor<?, ?>... methods) {
    return Stream.of(methods).map(MethodDescriptor::getFullMethodName).collect(Collectors.toUnmodifiableSet());
  }
}
