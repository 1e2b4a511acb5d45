package io.regent.server.ratis;

import io.regent.server.confirm.Confirmer;
import io.regent.server.confirm.LeaderQuery;
import io.regent.server.replication.EntryFormat;
import io.regent.server.replication.Proposer;
import com.google.protobuf.InvalidProtocolBufferException;
import io.regent.statemachine.apply.EntryCodec;
import io.regent.statemachine.apply.Repeats;
import io.regent.statemachine.proto.Confirm;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.exceptions.AlreadyClosedException;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * Submits log entries through Ratis (which routes them to the current leader) and decodes the apply result.
 * Proposals go through a {@link RaftClientPool}; a client whose proposal failed is replaced.
 *
 * <p>Failures (no leader, no quorum, timeout) complete the future with {@link UnavailableException}: the
 * entry may or may not have been applied, and callers retry idempotent commands only.
 */
public final class RatisProposer implements Proposer, LeaderQuery {
  /**
   * Resends of one proposal after a closed stream, at most: each follows at least Ratis's retry sleep
   * ({@link ProposalRetries#SLEEP_MS}) after a leader-not-ready reply, so this bounds a leader that stays not
   * ready, not the proposal timeout.
   */
  static final int MAX_RESENDS = 20;

  private final RaftClientPool clients;
  private final long timeoutMs;
  private final long questionTimeoutMs;
  private final Executor replies;
  private final EntryFormat format;

  /**
   * @param clients Ratis clients for the group (each with a bounded retry policy)
   * @param timeoutMs upper bound on one proposal, ms
   * @param questionTimeoutMs upper bound on one question to the leader ({@link #ask}), ms: the node's minimum
   *     election timeout. A follower has one question in flight and gathers every later request behind it
   *     ({@link Confirmer}), so a question stuck on a leader that no longer answers (paused, or a new leader's
   *     not-ready reply retried elsewhere by Ratis) would hold all of them, where a round would have answered;
   *     a leader that holds its lease answers in one round trip, one without it after one round.
   * @param replies where every continuation after a Ratis reply runs, never a Ratis thread ({@code NodeExecutors#replies})
   * @param format the entry version every voter applies, which each proposal is written in (docs/operations.md
   * "Upgrades")
   */
  public RatisProposer(RaftClientPool clients, long timeoutMs, long questionTimeoutMs, Executor replies,
                       EntryFormat format) {
    this.format = format;
    this.clients = clients;
    this.timeoutMs = timeoutMs;
    this.questionTimeoutMs = questionTimeoutMs;
    this.replies = replies;
  }

  /**
   * Proposes {@code entry}; completes with the leader's apply result once it is committed and applied, or
   * with {@link UnavailableException} (never throws). The entry is encoded once: every re-send below carries the
   * same bytes, request id and attempt included, so the state machine applies it once however often it arrives
   * (docs/api.md "Request ids", "Attempts").
   */
  @Override
  public CompletableFuture<Result> propose(LogEntry.Builder entry) {
    Message msg;
    int version = format.writable();
    try {
      msg = Message.valueOf(UnsafeByteOperations.unsafeWrap(EntryCodec.encode(entry, version)));
    } catch (IllegalArgumentException e) {
      // a batch cut just before a voter that applies no batches joined: its operations are answered UNAVAILABLE
      return CompletableFuture.failedFuture(new UnavailableException(e.getMessage(), e));
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    return send(msg, deadline, MAX_RESENDS, Repeats.harmless(entry)).handle((reply, err) -> {
      if (err != null) {
        throw new CompletionException(new UnavailableException("no quorum: " + rootMessage(err), err));
      }
      return decode(reply);
    });
  }

  /**
   * Sends {@code confirm} to the leader as a Ratis read-only request that skips Ratis's ReadIndex
   * ({@code sendReadOnlyNonLinearizable}): the leader's state machine answers it only under its leadership
   * lease, which is what makes the answer linearizable (docs/ratis.md §2 on why not Ratis's ReadIndex). Fails
   * with {@link UnavailableException} when no answer came within the question timeout: the asker then runs a
   * round of its own, and the question's late answer is dropped (docs/ratis.md §10).
   */
  @Override
  public CompletableFuture<Optional<Result>> ask(Confirm.Builder confirm) {
    Message msg = Message.valueOf(UnsafeByteOperations.unsafeWrap(EntryCodec.encode(LogEntry.newBuilder()
        .setConfirm(confirm), EntryCodec.VERSION)));
    int slot = clients.nextSlot();
    RaftClient client = clients.client(slot);
    CompletableFuture<RaftClientReply> sent;
    try {
      sent = client.async().sendReadOnlyNonLinearizable(msg);
    } catch (RuntimeException e) {
      sent = CompletableFuture.failedFuture(e);
    }
    return sent.orTimeout(questionTimeoutMs, TimeUnit.MILLISECONDS).handleAsync((reply, err) -> {
      if (err != null || !reply.isSuccess()) {
        clients.replace(slot, client);
      }
      if (err != null) {
        throw new CompletionException(new UnavailableException("no leader answered: " + rootMessage(err), err));
      }
      if (!reply.isSuccess()) {
        throw new CompletionException(new UnavailableException("the leader did not answer: "
            + (reply.getException() == null ? "unknown" : reply.getException().getMessage()), reply.getException()));
      }
      if (reply.getMessage().getContent().isEmpty()) {
        return Optional.<Result>empty();
      }
      try {
        return Optional.of(Result.parseFrom(reply.getMessage().getContent().toByteArray()));
      } catch (InvalidProtocolBufferException e) {
        throw new CompletionException(new IllegalStateException("undecodable leader answer", e));
      }
    }, replies);
  }

  /**
   * Sends {@code msg} through the next client; when the client's stream to the leader was closed under it
   * ({@link AlreadyClosedException}, which {@link ProposalRetries} does not let Ratis retry), sends it again
   * through the fresh client that replaced it, while {@code deadline} (System.nanoTime) has not passed — only when
   * {@code onReplacement}: the closed stream may have carried the first copy to the leader already. Ratis itself
   * would resend it too, with the same call id, but to a random other peer.
   *
   * @param onReplacement whether to resend it as soon as its client is replaced, too ({@link #unlessReplaced}):
   *     only an entry whose later copies change nothing ({@link Repeats#harmless}: request ids, attempts of
   *     version 4, and the few entries idempotent by their own guards); any other waits for its first copy's outcome
   *     (docs/api.md "Request ids", "Attempts")
   */
  private CompletableFuture<RaftClientReply> send(Message msg, long deadline, int resends, boolean onReplacement) {
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
    if (onReplacement) {
      sent = unlessReplaced(client, sent);
    }
    long left = deadline - System.nanoTime();
    // Off Ratis's thread at once: everything after a reply may send again (see NodeExecutors#replies).
    return sent.orTimeout(Math.max(1, left), TimeUnit.NANOSECONDS).handleAsync((reply, err) -> {
      if (err != null || !reply.isSuccess()) {
        clients.replace(slot, client);
      }
      if (err != null && onReplacement && resends > 0 && closed(err) && deadline - System.nanoTime() > 0) {
        return send(msg, deadline, resends - 1, onReplacement);
      }
      return err == null ? CompletableFuture.completedFuture(reply) : CompletableFuture.<RaftClientReply>failedFuture(err);
    }, replies).thenCompose(f -> f);
  }

  /**
   * {@code sent}, or an {@link AlreadyClosedException} as soon as {@code client} is replaced, so that the caller
   * resends the proposal through the replacement. Why: proposals sent to a leader that was then frozen (paused,
   * cut off) wait in the replaced client until the proposal timeout, and the batcher's next entries and the
   * Confirmer's rounds wait for them; the resend reaches the new leader in one round trip (issue #40: 8.4-8.9 s
   * after the new leader was ready before, for a write behind 6 or 20 stuck ones). The first copy may still
   * apply, later; only entries whose later copies change nothing are sent this way ({@link Repeats#harmless};
   * docs/api.md "Request ids"; docs/ratis.md §10).
   */
  private CompletableFuture<RaftClientReply> unlessReplaced(RaftClient client, CompletableFuture<RaftClientReply> sent) {
    CompletableFuture<RaftClientReply> raced = new CompletableFuture<>();
    Runnable unwatch = clients.whenReplaced(client, () -> raced.completeExceptionally(
        new AlreadyClosedException("its Ratis client was replaced (a new leader, or a failed proposal)")));
    sent.whenComplete((reply, err) -> {
      unwatch.run();
      if (err != null) {
        raced.completeExceptionally(err);
      } else {
        raced.complete(reply);
      }
    });
    return raced;
  }

  private static boolean closed(Throwable err) {
    for (Throwable c = err; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof AlreadyClosedException) {
        return true;
      }
    }
    return false;
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
