package io.regent.server.ratis;

import io.regent.server.confirm.LeadershipLease;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.LeaderSteppingDownException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.server.RaftServer;

/**
 * Hands entries straight to this node's own Ratis division while it is the ready leader, in process: no Ratis
 * client, no sliding window, no loopback gRPC hop there and back (docs/performance.md, "Where an entry's time
 * goes"). Everywhere else the node's pooled Ratis clients carry its entries to the leader.
 *
 * <p>Every request has this node's client id and a call id of its own, so Ratis's retry cache never takes one
 * entry for another.
 */
final class LocalSubmission {
  /** Where a request goes: the local Ratis server's {@link RaftServer#submitClientRequestAsync}. */
  @FunctionalInterface
  interface Division {
    /** Ratis's future of the reply; throws when the server is not running. */
    CompletableFuture<RaftClientReply> submit(RaftClientRequest request) throws IOException;
  }

  private final Division division;
  private final RaftPeerId self;
  private final LeadershipLease.Leadership leadership;
  private final ClientId clientId = ClientId.randomId();
  private final AtomicLong callIds = new AtomicLong();

  /**
   * @param division this node's Ratis server ({@code server::submitClientRequestAsync})
   * @param self this node's peer id
   * @param leadership whether this node is its ready leader now ({@link LocalDivision#leadership})
   */
  LocalSubmission(Division division, RaftPeerId self, LeadershipLease.Leadership leadership) {
    this.division = division;
    this.self = self;
    this.leadership = leadership;
  }

  /**
   * Submits {@code msg} as a write to the local division, or returns null when this node is not its ready leader
   * now (the caller sends it through a Ratis client instead). The future is Ratis's: it completes on a Ratis
   * thread, with a failed reply when the division refused or dropped the entry ({@link #refusedBeforeAppend}).
   */
  CompletableFuture<RaftClientReply> submit(Message msg) {
    if (leadership.readyTerm() < 0) {
      return null;
    }
    RaftClientRequest request = RaftClientRequest.newBuilder().setClientId(clientId).setServerId(self)
        .setGroupId(RaftSetup.GROUP_ID).setCallId(callIds.incrementAndGet()).setMessage(msg)
        .setType(RaftClientRequest.writeRequestType()).build();
    try {
      return division.submit(request);
    } catch (IOException | RuntimeException e) {
      return CompletableFuture.failedFuture(e); // closing, or not running yet
    }
  }

  /**
   * Whether {@code sent}, as {@link #submit} returned it, already holds the division's refusal to append: it was
   * not the leader, not ready, or stepping down. Ratis checks these before it appends and answers at once (Ratis
   * 3.3.0 {@code RaftServerImpl.checkLeaderState}); an entry it appended is answered only after replication, so a
   * refusal that comes later may follow an append and the entry may still commit under the next leader.
   */
  static boolean refusedBeforeAppend(CompletableFuture<RaftClientReply> sent) {
    if (!sent.isDone() || sent.isCompletedExceptionally()) {
      return false;
    }
    RaftClientReply reply = sent.join();
    return !reply.isSuccess() && (reply.getNotLeaderException() != null
        || reply.getException() instanceof LeaderNotReadyException
        || reply.getException() instanceof LeaderSteppingDownException
        || reply.getException() instanceof NotLeaderException);
  }
}
