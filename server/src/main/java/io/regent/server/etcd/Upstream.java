package io.regent.server.etcd;

import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.regent.api.v1.ClusterGrpc;
import io.regent.api.v1.LeaseGrpc;

/**
 * The Regent API connection of the etcd connection a call came on ({@link EtcdGateway}), in the call's
 * {@link Context}. Stubs made from it inherit the etcd call's deadline and cancellation, because grpc-java
 * binds a client call to the context current when it starts.
 */
record Upstream(ManagedChannel channel) {
  static final Context.Key<Upstream> KEY = Context.key("regent.etcd.upstream");

  /** The current call's upstream; only inside a call of the gateway. */
  static Upstream current() {
    return KEY.get();
  }

  LeaseGrpc.LeaseStub lease() {
    return LeaseGrpc.newStub(channel);
  }

  ClusterGrpc.ClusterStub cluster() {
    return ClusterGrpc.newStub(channel);
  }
}
