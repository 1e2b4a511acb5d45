package io.regent.server.security;

import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
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
import io.regent.api.v1.ObserveRequest;
import io.regent.api.v1.ProclaimRequest;
import io.regent.api.v1.ResignRequest;
import io.regent.api.v1.UnlockRequest;
import io.regent.server.security.Permissions.Right;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enforces a {@link Permissions} file on the public API: each call's caller ({@link ClientIdentity}) must
 * hold the call's right, on the name the request acts on for per-name calls. A refused call is closed
 * with PERMISSION_DENIED before its handler sees the request, so it proposes nothing and changes nothing.
 *
 * <p>Health checks and reflection are open to every caller. Any other method not in the table below
 * (membership changes, leadership transfer, snapshots) needs {@code member}: a new method is never open by
 * accident.
 */
public final class Authorizer implements ServerInterceptor {
  private static final Logger LOG = LoggerFactory.getLogger(Authorizer.class);

  /** The right a method needs, and how to find the name its request acts on (null: it names none). */
  private record Access(Right right, Function<Object, String> nameOf) {
  }

  private static final Access MEMBER = new Access(Right.MEMBER, null);
  private static final Map<String, Access> TABLE = new HashMap<>();

  static {
    put(ElectionGrpc.getCampaignMethod(), Right.CAMPAIGN, r -> ((CampaignRequest) r).getName());
    // every name must be allowed: a rule's prefix covers them all iff it covers their common prefix
    put(ElectionGrpc.getCampaignAllMethod(), Right.CAMPAIGN, r -> commonPrefix(((CampaignAllRequest) r).getNamesList()));
    put(ElectionGrpc.getProclaimMethod(), Right.CAMPAIGN, r -> ((ProclaimRequest) r).getLeader().getName());
    put(ElectionGrpc.getResignMethod(), Right.CAMPAIGN, r -> ((ResignRequest) r).getLeader().getName());
    put(ElectionGrpc.getFreshTokenMethod(), Right.CAMPAIGN, r -> ((FreshTokenRequest) r).getLeader().getName());
    put(ElectionGrpc.getLeaderMethod(), Right.READ, r -> ((LeaderRequest) r).getName());
    put(ElectionGrpc.getObserveMethod(), Right.READ, r -> ((ObserveRequest) r).getName());
    put(LockGrpc.getLockMethod(), Right.LOCK, r -> ((LockRequest) r).getName());
    put(LockGrpc.getUnlockMethod(), Right.LOCK, r -> ((UnlockRequest) r).getKey().getName());
    put(GroupGrpc.getJoinMethod(), Right.CAMPAIGN, r -> ((GroupJoinRequest) r).getGroup());
    put(GroupGrpc.getLeaveMethod(), Right.CAMPAIGN, r -> ((GroupLeaveRequest) r).getGroup());
    put(GroupGrpc.getReleaseMethod(), Right.CAMPAIGN, r -> ((GroupReleaseRequest) r).getGroup());
    put(GroupGrpc.getWatchMethod(), Right.READ, r -> ((GroupWatchRequest) r).getGroup());
    put(GroupGrpc.getStatusMethod(), Right.READ, r -> ((GroupStatusRequest) r).getGroup());
    put(LeaseGrpc.getGrantMethod(), Right.LEASE, null);
    put(LeaseGrpc.getKeepAliveMethod(), Right.LEASE, null);
    put(LeaseGrpc.getKeepAliveManyMethod(), Right.LEASE, null);
    put(LeaseGrpc.getKeepAliveStreamMethod(), Right.LEASE, null);
    put(LeaseGrpc.getRevokeMethod(), Right.LEASE, null);
    put(LeaseGrpc.getTimeToLiveMethod(), Right.LEASE, null);
    put(LeaseGrpc.getLeasesMethod(), Right.READ, null);
    put(ClusterGrpc.getStatusMethod(), Right.READ, null);
    put(ClusterGrpc.getMemberListMethod(), Right.READ, null);
  }

  private static String commonPrefix(java.util.List<String> names) {
    String p = names.isEmpty() ? "" : names.get(0);
    for (String n : names) {
      while (!n.startsWith(p)) {
        p = p.substring(0, p.length() - 1);
      }
    }
    return p;
  }

  private static void put(MethodDescriptor<?, ?> method, Right right, Function<Object, String> nameOf) {
    TABLE.put(method.getFullMethodName(), new Access(right, nameOf));
  }

  private final Permissions permissions;

  /** Enforces {@code permissions}. */
  public Authorizer(Permissions permissions) {
    this.permissions = permissions;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                     ServerCallHandler<Q, R> next) {
    String method = call.getMethodDescriptor().getFullMethodName();
    String service = call.getMethodDescriptor().getServiceName();
    if (service != null && (service.startsWith("grpc.health.") || service.startsWith("grpc.reflection."))) {
      return next.startCall(call, headers);
    }
    Access access = TABLE.getOrDefault(method, MEMBER);
    String identity = ClientIdentity.of(call);
    if (access.nameOf() == null) {
      if (!permissions.allows(identity, access.right(), null)) {
        deny(call, identity, access.right(), method, null);
        return new ServerCall.Listener<>() { };
      }
      return next.startCall(call, headers);
    }
    return new SimpleForwardingServerCallListener<>(next.startCall(call, headers)) {
      private boolean denied;

      @Override
      public void onMessage(Q message) {
        String name = access.nameOf().apply(message);
        if (!permissions.allows(identity, access.right(), name)) {
          denied = true;
          deny(call, identity, access.right(), method, name);
          return;
        }
        super.onMessage(message);
      }

      @Override
      public void onHalfClose() {
        // A denied call's handler never got its request: it must not run at all.
        if (!denied) {
          super.onHalfClose();
        }
      }
    };
  }

  private static void deny(ServerCall<?, ?> call, String identity, Right right, String method, String name) {
    String who = identity == null ? "a caller without a client certificate" : "identity '" + identity + "'";
    String on = name == null ? "" : " on '" + (name.length() > 128 ? name.substring(0, 128) + "..." : name) + "'";
    String message = who + " lacks the " + right.word() + " right" + on + " (" + method + ")";
    LOG.info("denied: {}", message);
    call.close(Status.PERMISSION_DENIED.withDescription(message), new Metadata());
  }
}
