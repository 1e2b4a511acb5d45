package io.regent.server.etcd;

import io.grpc.Attributes;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerTransportFilter;
import io.regent.server.limits.Admission;
import io.regent.server.limits.ConnectionLimiter;
import io.regent.server.limits.ServerLimits;
import io.regent.server.rpc.MethodRules;

/**
 * The public API's protections on the calls the gateway serves itself (KV, Watch, Election, Lock, the alarm
 * list): admission by lane and identity ({@link Admission}, the node's own instance, so etcd clients and Regent's
 * share its bulk limit and quotas) and the per-connection rate and calls-in-progress limits
 * ({@link ConnectionLimiter}, with this node's {@link ServerLimits}), as docs/operations.md "Limits" gives them.
 * A call refused gets RESOURCE_EXHAUSTED naming the limit before any handler runs, so it changes nothing.
 *
 * <p>A relayed call (leases, member list, status) passes untouched: the API admits and counts it once, on the etcd
 * connection's own upstream connection (see {@link EtcdGateway}). So an etcd connection has two per-connection
 * budgets of the same size, one for what the gateway serves and one for what it relays.
 *
 * <p>Install it both as the gateway's interceptor and as its transport filter (it forgets a closed connection).
 */
final class GatewayLimits extends ServerTransportFilter implements ServerInterceptor {
  private final Admission admission;
  private final ConnectionLimiter connections;

  /**
   * @param limits this node's API limits
   * @param admission this node's admission, shared with its API
   */
  GatewayLimits(ServerLimits limits, Admission admission) {
    this.admission = admission;
    this.connections = new ConnectionLimiter(limits, System::nanoTime, connection -> { });
  }

  @Override
  public void transportTerminated(Attributes attrs) {
    connections.transportTerminated(attrs);
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                    ServerCallHandler<Q, R> next) {
    if (MethodRules.relayed(call.getMethodDescriptor().getFullMethodName())) {
      return next.startCall(call, headers);
    }
    // admission first, as on the API: a call it sheds costs as little as possible
    return admission.interceptCall(call, headers, (c, h) -> connections.interceptCall(c, h, next));
  }
}
