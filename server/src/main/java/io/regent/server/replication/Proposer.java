package io.regent.server.replication;

import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import java.util.concurrent.CompletableFuture;

/**
 * Something that replicates a log entry and completes with its apply result (Ratis in production, the single
 * writer's log without Raft). The replication port: every package that proposes imports it, so it sits in a
 * bottom package of its own that uses nothing else of the server (PackageRulesTest).
 */
@FunctionalInterface
public interface Proposer {
  /**
   * Proposes {@code entry}; the future fails with {@link UnavailableException} when it could not be
   * committed in time (it may still be applied later).
   */
  CompletableFuture<Result> propose(LogEntry.Builder entry);

  /** The cluster could not commit the entry in time (no leader or no quorum); retry later. */
  final class UnavailableException extends RuntimeException {
    /**
     * @param message why, for the client's UNAVAILABLE status
     * @param cause what the replication layer reported, or null
     */
    public UnavailableException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
