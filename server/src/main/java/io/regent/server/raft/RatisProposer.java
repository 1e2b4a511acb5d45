package io.regent.server.raft;

import com.google.protobuf.InvalidProtocolBufferException;
import io.regent.statemachine.apply.EntryCodec;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * Submits log entries through Ratis (which routes them to the current leader) and decodes the apply result.
 * Proposals go through a {@link RaftClientPool}; a client whose proposal failed is replaced.
 *
 * <p>Failures (no leader, no quorum, timeout) complete the future with {@link UnavailableException}: the
 * entry may or may not have been applied, and callers retry idempotent commands only.
 */
public final class RatisProposer implements Proposer {
  private final RaftClientPool clients;
  private final long timeoutMs;

  /**
   * @param clients Ratis clients for the group (each with a bounded retry policy)
   * @param timeoutMs upper bound on one proposal, ms
   */
  public RatisProposer(RaftClientPool clients, long timeoutMs) {
    this.clients = clients;
    this.timeoutMs = timeoutMs;
  }

  /**
   * Proposes {@code entry}; completes with the leader's apply result once it is committed and applied, or
   * with {@link UnavailableException} (never throws).
   */
  @Override
  public CompletableFuture<Result> propose(LogEntry.Builder entry) {
    Message msg = Message.valueOf(UnsafeByteOperations.unsafeWrap(EntryCodec.encode(entry)));
    int slot = clients.nextSlot();
    RaftClient client = clients.client(slot);
    CompletableFuture<RaftClientReply> sent;
    try {
      sent = client.async().send(msg);
    } catch (RuntimeException e) {
      // e.g. the client was closed meanwhile: fail the future, never the caller, so that callers that
      // chain on the future (the Confirmer's rounds) always see an outcome
      sent = CompletableFuture.failedFuture(e);
    }
    return sent
        .orTimeout(timeoutMs, TimeUnit.MILLISECONDS)
        .handle((reply, err) -> {
          if (err != null || !reply.isSuccess()) {
            clients.replace(slot, client);
          }
          if (err != null) {
            throw new CompletionException(new UnavailableException("no quorum: " + rootMessage(err), err));
          }
          return decode(reply);
        });
  }

  private static Result decode(RaftClientReply reply) {
    if (!reply.isSuccess()) {
      throw new CompletionException(new UnavailableException("proposal failed: "
          + (reply.getException() == null ? "unknown" : reply.getException().getMessage()), reply.getException()));
    }
    try {
      return Result.parseFrom(reply.getMessage().getContent().toByteArray());
    } catch (InvalidProtocolBufferException e) {
      throw new CompletionException(new IllegalStateException("undecodable apply result", e));
    }
  }

  private static String rootMessage(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    return c.getClass().getSimpleName() + (c.getMessage() == null ? "" : ": " + c.getMessage());
  }
}
