package io.regent.server.etcd;

import io.etcd.jetcd.api.WatchGrpc;
import io.etcd.jetcd.api.WatchRequest;
import io.etcd.jetcd.api.WatchResponse;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * etcd's {@code etcdserverpb.Watch} service on Regent's keyspace (docs/migrating.md "etcd's Watch"): each call is a
 * {@link WatchStream} carrying the watchers its client creates, served from this node's replica of the replicated
 * history, as an etcd member serves watches from its own store.
 */
final class EtcdWatchService extends WatchGrpc.WatchImplBase {
  private final Headers headers;
  private final EtcdKv node;
  /** The streams open on this node, ended ones dropped as {@link #watchers} meets them. */
  private final Set<WatchStream> streams = ConcurrentHashMap.newKeySet();

  EtcdWatchService(Headers headers, EtcdKv node) {
    this.headers = headers;
    this.node = node;
  }

  @Override
  public StreamObserver<WatchRequest> watch(StreamObserver<WatchResponse> obs) {
    WatchStream stream = new WatchStream((ServerCallStreamObserver<WatchResponse>) obs, headers, node);
    streams.add(stream);
    return stream;
  }

  /** The watchers of every open stream on this node (status, metrics, the console: docs/operations.md). */
  long watchers() {
    streams.removeIf(WatchStream::ended);
    return streams.stream().mapToLong(WatchStream::watcherCount).sum();
  }
}
