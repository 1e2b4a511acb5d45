package io.regent.client;

import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;

/**
 * Tells a node's own UNAVAILABLE refusal (it is alive and answering: "not confirmed by a ready leader", a leader
 * change under way) from the transport's (unreachable, connection lost). Only the transport's makes the leader's
 * endpoint suspect in {@link LeaderRouting}: a new leader that refuses its first keepalives while it becomes ready
 * stays the endpoint that calls start at, instead of being passed over until the next term — on a keepalive
 * stream, whose messages carry no reply headers, a passed-over leader was never seen answering again
 * (docs/api.md, "Leader-aware routing").
 */
final class NodeRefusal {
  /**
   * Marks a refusal that came as a stream's message rather than as the call's status; set and read inside this
   * client only, never sent.
   */
  private static final Metadata.Key<String> IN_BAND = Metadata.Key.of("regent-client-in-band",
      Metadata.ASCII_STRING_MARSHALLER);

  private NodeRefusal() {
  }

  /** A refusal that a node sent as a stream's message ({@code code} and {@code message} of the response). */
  static StatusRuntimeException inBand(int code, String message) {
    Metadata md = new Metadata();
    md.put(IN_BAND, "1");
    return Status.fromCodeValue(code).withDescription(message).asRuntimeException(md);
  }

  /**
   * Whether {@code t} is an UNAVAILABLE that a Regent node answered itself: a stream's message, or a call's status
   * whose trailers name the node ({@link LeaderMetadata#NODE}), which a transport failure never has.
   */
  static boolean answeredUnavailable(Throwable t) {
    Status s = Status.fromThrowable(t);
    if (s.getCode() != Status.Code.UNAVAILABLE) {
      return false;
    }
    Metadata trailers = Status.trailersFromThrowable(t);
    return trailers != null && (trailers.containsKey(IN_BAND) || trailers.containsKey(LeaderMetadata.NODE));
  }
}
