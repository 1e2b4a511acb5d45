package io.regent.server.rpc;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.api.DeleteRangeRequest;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.PutRequest;
import io.etcd.jetcd.api.RangeRequest;
import io.grpc.MethodDescriptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.health.v1.HealthGrpc;
import io.regent.api.v1.CampaignAllRequest;
import io.regent.api.v1.CampaignRequest;
import io.regent.api.v1.ClusterGrpc;
import io.regent.api.v1.ElectionGrpc;
import io.regent.api.v1.FreshTokenRequest;
import io.regent.api.v1.GroupGrpc;
import io.regent.api.v1.GroupJoinRequest;
import io.regent.api.v1.GroupLeaveRequest;
import io.regent.api.v1.GroupReleaseRequest;
import io.regent.api.v1.GroupStatusRequest;
import io.regent.api.v1.GroupWatchRequest;
import io.regent.api.v1.LeaderRequest;
import io.regent.api.v1.LeaseGrpc;
import io.regent.api.v1.LockGrpc;
import io.regent.api.v1.LockRequest;
import io.regent.api.v1.MaintenanceGrpc;
import io.regent.api.v1.ObserveRequest;
import io.regent.api.v1.ProclaimRequest;
import io.regent.api.v1.ResignRequest;
import io.regent.api.v1.UnlockRequest;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * One declaration per gRPC method a node serves: for the public API's methods their {@link MethodRule} (lane,
 * right, the name a request acts on), which admission ({@code io.regent.server.limits.Admission}) and
 * permissions ({@code io.regent.server.security.Authorizer}) both read; for the etcd gateway's methods the
 * Regent methods each call becomes, whose rules then apply on the API (the gateway admits only what it serves itself).
 * etcd's KV and Watch have no Regent counterpart, nor have its Election and Lock, which etcd writes over its KV: the
 * gateway serves them itself and they are declared with rules of their own.
 * Both servers refuse to start with a method declared nowhere ({@link #requireDeclared}), so a new method is
 * never open, nor in the wrong lane, by accident. Adding an RPC: docs/architecture.md §7.3.
 */
public final class MethodRules {
  /** The rule of a method declared nowhere (none is served): bulk, and only for members. */
  static final MethodRule UNDECLARED = new MethodRule(Lane.BULK, Right.MEMBER, null, false);

  private static final Map<String, MethodRule> SERVED = new HashMap<>();
  private static final Map<String, List<String>> RELAYED = new HashMap<>();

  static {
    // regent.v1.Lease: leases are not per name
    serve(LeaseGrpc.getGrantMethod(), Lane.BULK, Right.LEASE, null);
    serve(LeaseGrpc.getRevokeMethod(), Lane.PRIORITY, Right.LEASE, null);
    renewsLeases(LeaseGrpc.getKeepAliveMethod());
    renewsLeases(LeaseGrpc.getKeepAliveManyMethod());
    renewsLeases(LeaseGrpc.getKeepAliveStreamMethod());
    serve(LeaseGrpc.getTimeToLiveMethod(), Lane.BULK, Right.LEASE, null);
    serve(LeaseGrpc.getLeasesMethod(), Lane.BULK, Right.READ, null);
    // regent.v1.Election
    serve(ElectionGrpc.getCampaignMethod(), Lane.BULK, Right.CAMPAIGN, r -> ((CampaignRequest) r).getName());
    // every name must be allowed: a rule's prefix covers them all iff it covers their common prefix
    serve(ElectionGrpc.getCampaignAllMethod(), Lane.BULK, Right.CAMPAIGN,
        r -> commonPrefix(((CampaignAllRequest) r).getNamesList()));
    serve(ElectionGrpc.getProclaimMethod(), Lane.BULK, Right.CAMPAIGN,
        r -> ((ProclaimRequest) r).getLeader().getName());
    serve(ElectionGrpc.getResignMethod(), Lane.PRIORITY, Right.CAMPAIGN,
        r -> ((ResignRequest) r).getLeader().getName());
    serve(ElectionGrpc.getFreshTokenMethod(), Lane.BULK, Right.CAMPAIGN,
        r -> ((FreshTokenRequest) r).getLeader().getName());
    serve(ElectionGrpc.getLeaderMethod(), Lane.BULK, Right.READ, r -> ((LeaderRequest) r).getName());
    serve(ElectionGrpc.getObserveMethod(), Lane.BULK, Right.READ, r -> ((ObserveRequest) r).getName());
    // regent.v1.Lock
    serve(LockGrpc.getLockMethod(), Lane.BULK, Right.LOCK, r -> ((LockRequest) r).getName());
    serve(LockGrpc.getUnlockMethod(), Lane.PRIORITY, Right.LOCK, r -> ((UnlockRequest) r).getKey().getName());
    // regent.v1.Group: rights on the group's name
    serve(GroupGrpc.getJoinMethod(), Lane.BULK, Right.CAMPAIGN, r -> ((GroupJoinRequest) r).getGroup());
    serve(GroupGrpc.getLeaveMethod(), Lane.PRIORITY, Right.CAMPAIGN, r -> ((GroupLeaveRequest) r).getGroup());
    serve(GroupGrpc.getReleaseMethod(), Lane.PRIORITY, Right.CAMPAIGN, r -> ((GroupReleaseRequest) r).getGroup());
    serve(GroupGrpc.getWatchMethod(), Lane.BULK, Right.READ, r -> ((GroupWatchRequest) r).getGroup());
    serve(GroupGrpc.getStatusMethod(), Lane.BULK, Right.READ, r -> ((GroupStatusRequest) r).getGroup());
    // regent.v1.Cluster: membership changes are what an operator needs to mend an overloaded cluster
    serve(ClusterGrpc.getStatusMethod(), Lane.BULK, Right.READ, null);
    serve(ClusterGrpc.getMemberListMethod(), Lane.PRIORITY, Right.READ, null);
    serve(ClusterGrpc.getMemberAddMethod(), Lane.PRIORITY, Right.MEMBER, null);
    serve(ClusterGrpc.getMemberPromoteMethod(), Lane.PRIORITY, Right.MEMBER, null);
    serve(ClusterGrpc.getMemberRemoveMethod(), Lane.PRIORITY, Right.MEMBER, null);
    serve(ClusterGrpc.getTransferLeadershipMethod(), Lane.PRIORITY, Right.MEMBER, null);
    // regent.v1.Maintenance
    serve(MaintenanceGrpc.getSnapshotMethod(), Lane.BULK, Right.MEMBER, null);
    // gRPC health and reflection (v1, and v1alpha, which grpcui, Evans and Postman still ask for): open to all
    serve(HealthGrpc.getCheckMethod(), Lane.PRIORITY, null, null);
    serve(HealthGrpc.getWatchMethod(), Lane.PRIORITY, null, null);
    serve(io.grpc.reflection.v1.ServerReflectionGrpc.getServerReflectionInfoMethod(), Lane.BULK, null, null);
    serve(io.grpc.reflection.v1alpha.ServerReflectionGrpc.getServerReflectionInfoMethod(), Lane.BULK, null, null);

    // etcd's etcdserverpb.Lease on the etcd port (io.regent.server.etcd)
    relay(io.etcd.jetcd.api.LeaseGrpc.getLeaseGrantMethod(), LeaseGrpc.getGrantMethod());
    relay(io.etcd.jetcd.api.LeaseGrpc.getLeaseRevokeMethod(), LeaseGrpc.getRevokeMethod());
    relay(io.etcd.jetcd.api.LeaseGrpc.getLeaseKeepAliveMethod(), LeaseGrpc.getKeepAliveMethod());
    relay(io.etcd.jetcd.api.LeaseGrpc.getLeaseTimeToLiveMethod(), LeaseGrpc.getTimeToLiveMethod());
    // jetcd's stubs leave LeaseLeases out: the gateway declares it itself
    relay(MethodDescriptor.generateFullMethodName(io.etcd.jetcd.api.LeaseGrpc.SERVICE_NAME, "LeaseLeases"),
        LeaseGrpc.getLeasesMethod());
    // etcd's v3electionpb.Election and v3lockpb.Lock: written over etcd's KV, served by the gateway itself on the
    // keyspace like KV's writes, on the name they queue under
    serve(io.etcd.jetcd.api.ElectionGrpc.getCampaignMethod(), Lane.BULK, Right.KV,
        r -> utf8(((io.etcd.jetcd.api.CampaignRequest) r).getName()));
    serve(io.etcd.jetcd.api.ElectionGrpc.getProclaimMethod(), Lane.BULK, Right.KV,
        r -> utf8(((io.etcd.jetcd.api.ProclaimRequest) r).getLeader().getName()));
    serve(io.etcd.jetcd.api.ElectionGrpc.getLeaderMethod(), Lane.BULK, Right.READ,
        r -> utf8(((io.etcd.jetcd.api.LeaderRequest) r).getName()));
    serve(io.etcd.jetcd.api.ElectionGrpc.getObserveMethod(), Lane.BULK, Right.READ,
        r -> utf8(((io.etcd.jetcd.api.LeaderRequest) r).getName()));
    serve(io.etcd.jetcd.api.ElectionGrpc.getResignMethod(), Lane.PRIORITY, Right.KV,
        r -> utf8(((io.etcd.jetcd.api.ResignRequest) r).getLeader().getName()));
    serve(io.etcd.jetcd.api.lock.LockGrpc.getLockMethod(), Lane.BULK, Right.KV,
        r -> utf8(((io.etcd.jetcd.api.lock.LockRequest) r).getName()));
    serve(io.etcd.jetcd.api.lock.LockGrpc.getUnlockMethod(), Lane.PRIORITY, Right.KV,
        r -> utf8(((io.etcd.jetcd.api.lock.UnlockRequest) r).getKey()));
    // etcd's etcdserverpb.KV: served by the gateway itself (no Regent counterpart), on the key it names
    serve(KVGrpc.getRangeMethod(), Lane.BULK, Right.READ, r -> utf8(((RangeRequest) r).getKey()));
    serve(KVGrpc.getPutMethod(), Lane.BULK, Right.KV, r -> utf8(((PutRequest) r).getKey()));
    serve(KVGrpc.getDeleteRangeMethod(), Lane.BULK, Right.KV, r -> utf8(((DeleteRangeRequest) r).getKey()));
    // a Txn's keys are in its compares and operations: like a call that names none, it needs the right everywhere
    serve(KVGrpc.getTxnMethod(), Lane.BULK, Right.KV, null);
    serve(KVGrpc.getCompactMethod(), Lane.BULK, Right.KV, null);
    // etcd's etcdserverpb.Watch: a stream of many watchers, each on its own range, so no one name
    serve(io.etcd.jetcd.api.WatchGrpc.getWatchMethod(), Lane.BULK, Right.READ, null);
    // jetcd's stubs add a unary Watch/Progress that etcd's rpc.proto lacks: bound, answered UNIMPLEMENTED (gRPC's own)
    serve(io.etcd.jetcd.api.WatchGrpc.getProgressMethod(), Lane.BULK, Right.READ, null);
    // etcd's etcdserverpb.Cluster and Maintenance, as far as a client touches them on connect: the members with
    // each one's etcd address (asked of the member's own Status), this node's status, its (empty) alarm list
    relay(io.etcd.jetcd.api.ClusterGrpc.getMemberListMethod(), ClusterGrpc.getMemberListMethod(),
        ClusterGrpc.getStatusMethod());
    relay(io.etcd.jetcd.api.MaintenanceGrpc.getStatusMethod(), ClusterGrpc.getStatusMethod());
    serve(io.etcd.jetcd.api.MaintenanceGrpc.getAlarmMethod(), Lane.BULK, Right.READ, null);
    // bound by etcd's generated services, answered UNIMPLEMENTED naming the method (gRPC's own description)
    Stream.of(io.etcd.jetcd.api.ClusterGrpc.getMemberAddMethod(), io.etcd.jetcd.api.ClusterGrpc.getMemberRemoveMethod(),
        io.etcd.jetcd.api.ClusterGrpc.getMemberUpdateMethod(), io.etcd.jetcd.api.MaintenanceGrpc.getDefragmentMethod(),
        io.etcd.jetcd.api.MaintenanceGrpc.getHashMethod(), io.etcd.jetcd.api.MaintenanceGrpc.getHashKVMethod(),
        io.etcd.jetcd.api.MaintenanceGrpc.getSnapshotMethod(), io.etcd.jetcd.api.MaintenanceGrpc.getMoveLeaderMethod())
        .forEach(m -> serve(m, Lane.BULK, Right.MEMBER, null));
  }

  private static String utf8(ByteString key) {
    return key.toStringUtf8();
  }

  private MethodRules() {
  }

  /**
   * The rule of the public API method named {@code fullMethodName} ({@code package.Service/Method}); for a
   * method declared nowhere, bulk and only for members.
   */
  public static MethodRule of(String fullMethodName) {
    return SERVED.getOrDefault(fullMethodName, UNDECLARED);
  }

  /**
   * Whether the etcd gateway relays {@code fullMethodName} to Regent methods (whose rules then apply on the API),
   * rather than serving it itself.
   */
  public static boolean relayed(String fullMethodName) {
    return RELAYED.containsKey(fullMethodName);
  }

  /**
   * Checks that every method of {@code services} is declared here, as served or as relayed.
   *
   * @throws IllegalStateException naming the methods declared nowhere
   */
  public static void requireDeclared(Collection<ServerServiceDefinition> services) {
    List<String> missing = services.stream().flatMap(s -> s.getMethods().stream())
        .map(ServerMethodDefinition::getMethodDescriptor).map(MethodDescriptor::getFullMethodName)
        .filter(m -> !SERVED.containsKey(m) && !RELAYED.containsKey(m)).sorted().toList();
    if (!missing.isEmpty()) {
      throw new IllegalStateException("gRPC methods served without a declaration in MethodRules (lane, right, name;"
          + " docs/architecture.md §7.3): " + missing);
    }
  }

  private static void serve(MethodDescriptor<?, ?> method, Lane lane, Right right, Function<Object, String> nameOf) {
    declare(SERVED, method.getFullMethodName(), new MethodRule(lane, right, nameOf, false));
  }

  private static void renewsLeases(MethodDescriptor<?, ?> method) {
    declare(SERVED, method.getFullMethodName(), new MethodRule(Lane.PRIORITY, Right.LEASE, null, true));
  }

  private static void relay(MethodDescriptor<?, ?> etcdMethod, MethodDescriptor<?, ?>... regentMethods) {
    relay(etcdMethod.getFullMethodName(), regentMethods);
  }

  private static void relay(String etcdMethod, MethodDescriptor<?, ?>... regentMethods) {
    List<String> targets = Stream.of(regentMethods).map(MethodDescriptor::getFullMethodName).toList();
    targets.stream().filter(t -> !SERVED.containsKey(t)).findAny().ifPresent(t -> {
      throw new IllegalStateException(etcdMethod + " relays to " + t + ", which is not served");
    });
    declare(RELAYED, etcdMethod, targets);
  }

  private static <V> void declare(Map<String, V> table, String method, V value) {
    if (SERVED.containsKey(method) || RELAYED.containsKey(method)) {
      throw new IllegalStateException(method + " is declared twice");
    }
    table.put(method, value);
  }

  private static String commonPrefix(List<String> names) {
    String p = names.isEmpty() ? "" : names.get(0);
    for (String n : names) {
      while (!n.startsWith(p)) {
        p = p.substring(0, p.length() - 1);
      }
    }
    return p;
  }
}
