package io.regent.client;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.ForwardingClientCallListener.SimpleForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;

/**
 * Reads the {@link LeaderMetadata} of every reply on one endpoint's channel — from the response headers, or
 * from the trailers of a reply that had none (an error) — and hands it to the client's routing.
 */
final class LeaderHintInterceptor implements ClientInterceptor {
  /** Told each reply's hint; must not block (it runs on gRPC's callback thread). */
  interface Sink {
    void hint(int endpoint, LeaderRouting.Hint hint);
  }

  private final int endpoint;
  private final Sink sink;

  LeaderHintInterceptor(int endpoint, Sink sink) {
    this.endpoint = endpoint;
    this.sink = sink;
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    return new SimpleForwardingClientCall<>(next.newCall(method, options)) {
      @Override
      public void start(Listener<R> listener, Metadata headers) {
        super.start(new SimpleForwardingClientCallListener<>(listener) {
          private boolean seen; // gRPC calls a listener serially

          @Override
          public void onHeaders(Metadata h) {
            seen = true;
            report(h);
            super.onHeaders(h);
          }

          @Override
          public void onClose(Status status, Metadata trailers) {
            if (!seen || !status.isOk()) { // a stream that failed after its headers names the leader of now
              report(trailers);
            }
            super.onClose(status, trailers);
          }
        }, headers);
      }
    };
  }

  private void report(Metadata md) {
    LeaderRouting.Hint h = LeaderRouting.Hint.of(md);
    if (h != null) {
      sink.hint(endpoint, h);
    }
  }
}
