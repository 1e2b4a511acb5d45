package io.regent.server.api;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.regent.client.LeaderMetadata;

/**
 * Reads a re-send's {@link LeaderMetadata#SEEN_INDEX} — the highest applied index its client had seen before it
 * first sent the request — into the call's context, for {@link RequestId}: apply refuses the re-send when its
 * record may have been pruned (docs/api.md "Request ids"). A value that is not a positive decimal number is
 * ignored, as if not sent: the request is then applied as a first send would be.
 */
final class SeenIndexHeader implements ServerInterceptor {
  private static final Context.Key<Long> SEEN = Context.key("regent-seen-index");

  /** The seen index of the current call, 0 when it sent none (a first send). */
  static long current() {
    Long v = SEEN.get();
    return v == null ? 0 : v;
  }

  /** Runs {@code body} as a call that sent no seen index: {@link #current} is 0 inside it. */
  static void withoutSeenIndex(Runnable body) {
    Context.current().withValue(SEEN, null).run(body);
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                     ServerCallHandler<Q, R> next) {
    String v = headers.get(LeaderMetadata.SEEN_INDEX);
    long seen = parse(v);
    if (seen <= 0) {
      return next.startCall(call, headers);
    }
    return Contexts.interceptCall(Context.current().withValue(SEEN, seen), call, headers, next);
  }

  private static long parse(String v) {
    if (v == null) {
      return 0;
    }
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
