package io.regent.server.ratis;

import io.regent.server.confirm.Confirmer;
import io.regent.server.confirm.LeaderQuery;
import io.regent.statemachine.apply.EntryCodec;
import io.regent.statemachine.proto.LogEntry;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * The leader's side of {@link LeaderQuery}: a Ratis read-only request carrying a Confirm entry, answered as the
 * leader answers its own clients ({@link Confirmer#answerForFollower}) with the encoded Result, or with an empty
 * message when this node cannot (the follower then proposes its own round). Ratis delivers it only on the ready
 * leader ({@code RaftServerImpl.checkLeaderState}); anything but a Confirm is refused.
 */
public final class FollowerQueries {
  private final Confirmer confirmer;

  /** @param confirmer this node's confirmer (with its leadership lease) */
  public FollowerQueries(Confirmer confirmer) {
    this.confirmer = confirmer;
  }

  /** Answers one request; fails with IllegalArgumentException when it is not a Confirm entry. */
  public CompletableFuture<Message> answer(Message request) {
    LogEntry entry = EntryCodec.decode(request.getContent().toByteArray()); // undecodable: no command
    if (!entry.hasConfirm()) {
      return CompletableFuture.failedFuture(new IllegalArgumentException("only Confirm entries are answered here"));
    }
    return confirmer.answerForFollower(entry.getConfirm()).thenApply(c -> c == null ? Message.EMPTY
        : Message.valueOf(UnsafeByteOperations.unsafeWrap(c.result().toByteArray())));
  }
}
