package io.regent.client;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Context;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.ForwardingClientCallListener.SimpleForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The highest applied index this client's replies have shown ({@link LeaderMetadata#APPLIED_INDEX}), and the
 * {@link LeaderMetadata#SEEN_INDEX} a re-send carries: the index seen before the request was first sent, so that a
 * node refuses the re-send rather than apply it again when its record may have been pruned (docs/api.md "Request
 * ids"). One per client, on every endpoint's channel.
 */
final class SeenIndex implements ClientInterceptor {
  /** The index a re-send carries, set by {@link Calls} around every attempt after a call's first. */
  static final Context.Key<Long> RESEND = Context.key("regent-seen-index");

  private final AtomicLong highest = new AtomicLong();

  /** The highest applied index a reply has shown so far; 0 before any. */
  long highest() {
    return highest.get();
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    Long resend = RESEND.get();
    return new SimpleForwardingClientCall<>(next.newCall(method, options)) {
      @Override
      public void start(Listener<R> listener, Metadata headers) {
        if (resend != null && resend > 0) {
          headers.put(LeaderMetadata.SEEN_INDEX, Long.toString(resend));
        }
        super.start(new SimpleForwardingClientCallListener<>(listener) {
          @Override
          public void onHeaders(Metadata h) {
            note(h);
            super.onHeaders(h);
          }

          @Override
          public void onClose(Status status, Metadata trailers) {
            note(trailers);
            super.onClose(status, trailers);
          }
        }, headers);
      }
    };
  }

  private void note(Metadata md) {
    String v = md.get(LeaderMetadata.APPLIED_INDEX);
    if (v == null) {
      return;
    }
    try {
      highest.accumulateAndGet(Long.parseLong(v), Math::max);
    } catch (NumberFormatException e) {
      // a node that sends something else names no index: nothing learnt
    }
  }
}
