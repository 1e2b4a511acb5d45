package io.regent.server.confirm;

import io.regent.server.replication.Proposer;
import io.regent.statemachine.proto.Confirm;
import io.regent.statemachine.proto.Result;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Asks the Raft leader to answer a Confirm under its leadership lease, as it answers its own clients
 * (docs/architecture.md §8.1): a follower's keepalive or linearizable read then costs one round trip to the
 * leader instead of a log entry.
 */
@FunctionalInterface
public interface LeaderQuery {
  /**
   * @return the leader's answer (its index and lease statuses, as a committed round's reply), or empty when
   *     the leader holds no lease now and a Confirm round is needed; fails with
   *     {@link Proposer.UnavailableException} when no leader answered in time
   */
  CompletableFuture<Optional<Result>> ask(Confirm.Builder confirm);
}
