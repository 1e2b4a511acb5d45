package io.regent.server.etcd;

import io.etcd.jetcd.api.WatchGrpc;
import io.etcd.jetcd.api.WatchRequest;
import io.etcd.jetcd.api.WatchResponse;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;

/**
 * etcd's {@code etcdserverpb.Watch} service on Regent's keyspace (docs/migrating.md "etcd's Watch"): each call is a
 * {@link WatchStream} carrying the watchers its client creates, served from this node's replica of the replicated
 * history, as an etcd member serves watches from its own store.
 */
final class EtcdWatchService extends WatchGrpc.WatchImplBase {
  private final Headers headers;
  private final EtcdKv node;

  EtcdWatchService(Headers headers, EtcdKv node) {
    this.headers = headers;
    this.node = node;
  }

  @Override
  public StreamObserver<WatchRequest> watch(StreamObserver<WatchResponse> obs) {
    return new WatchStream((ServerCallStreamObserver<WatchResponse>) obs, headers, node);
  }
}
