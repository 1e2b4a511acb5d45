package io.regent.server.security;

import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.regent.server.rpc.MethodRule;
import io.regent.server.rpc.MethodRules;
import io.regent.server.rpc.Right;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enforces a {@link Permissions} file on the public API: each call's caller ({@link ClientIdentity}) must
 * hold the call's right, on the name the request acts on for per-name calls; both are declared per method in
 * {@link MethodRules}. A refused call is closed with PERMISSION_DENIED before its handler sees the request, so it
 * proposes nothing and changes nothing.
 *
 * <p>Health checks and reflection are open to every caller; membership changes, leadership transfer and
 * snapshots need {@code member}, and so would a method declared nowhere: a new method is never open by accident.
 */
public final class Authorizer implements ServerInterceptor {
  private static final Logger LOG = LoggerFactory.getLogger(Authorizer.class);

  private final Permissions permissions;

  /** Enforces {@code permissions}. */
  public Authorizer(Permissions permissions) {
    this.permissions = permissions;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                     ServerCallHandler<Q, R> next) {
    String method = call.getMethodDescriptor().getFullMethodName();
    MethodRule access = MethodRules.of(method);
    if (access.open()) {
      return next.startCall(call, headers);
    }
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
