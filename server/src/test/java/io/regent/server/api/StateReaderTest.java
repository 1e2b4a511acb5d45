package io.regent.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.regent.api.v1.StatusResponse;
import io.regent.server.confirm.Confirmer;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.replica.ReplicaView;
import io.regent.statemachine.store.StateTxn;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Serializable reads: a saturated node fails the call with RESOURCE_EXHAUSTED instead of throwing at the caller, and
 * a node that has not replayed what was committed before it started answers none (docs/operations.md "Restarts").
 */
class StateReaderTest {
  /** A node that has replayed: serializable reads are served. */
  static final StateReader.Replay REPLAYED = new StateReader.Replay() {
    @Override
    public boolean replayed() {
      return true;
    }

    @Override
    public long replayTarget() {
      return 0;
    }
  };

  @Test
  void aSerializableReadOnAFullBlockingPoolIsResourceExhausted() {
    StateReader reader = new StateReader(new Confirmer(e -> new CompletableFuture<>()), null, task -> {
      throw new RejectedExecutionException("full");
    }, REPLAYED);
    CompletableFuture<Object> read = reader.read(true, txn -> "never");
    assertThat(read).isCompletedExceptionally();
    Throwable cause = read.handle((v, e) -> e).join();
    assertThat(StatusCodes.toStatus(cause).getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    CompletableFuture<?> holder = reader.holder(true, "jobs");
    assertThat(holder).isCompletedExceptionally();
  }

  @Test
  void aRestartedNodeAnswersNoSerializableReadUntilItHasReplayedWhatWasCommittedBeforeItStarted() {
    long[] applied = {80_007}; // replayed from its snapshot; before it stopped it had applied 82_057
    ReplicaView replica = new ReplicaView() {
      @Override
      public <T> T read(Function<StateTxn, T> body) {
        throw new AssertionError("a read from the state before the replay");
      }

      @Override
      public long appliedIndex() {
        return applied[0];
      }

      @Override
      public EventHub hub() {
        throw new UnsupportedOperationException();
      }
    };
    HealthReporter health = new HealthReporter(() -> status("", 0, 0), new io.grpc.protobuf.services.HealthStatusManager(),
        () -> applied[0]);
    StateReader reader = new StateReader(new Confirmer(e -> new CompletableFuture<>()), replica, Runnable::run,
        health);
    health.ready(status("", 80_007, applied[0])); // what its own log says; no leader known yet
    assertThat(refusal(reader)).hasMessageContaining("replaying").hasMessageContaining("knows no leader");
    health.ready(status("n1", 82_057, applied[0])); // the leader's commit index when first learnt
    assertThat(refusal(reader)).hasMessageContaining("80007").hasMessageContaining("82057");
    assertThat(reader.holder(true, "jobs")).isCompletedExceptionally();

    applied[0] = 82_057;
    assertThat(health.replayed()).as("caught up, with no health evaluation since").isTrue();
    assertThat(reader.read(true, txn -> "fresh").handle((v, e) -> e).join())
        .as("a read between the catch-up and the next health evaluation is not refused as replaying")
        .isNotNull().satisfies(e -> assertThat(e).hasMessageNotContaining("replaying"));
    health.ready(status("", 82_100, applied[0]));
    assertThat(health.replayed()).as("caught up once: a later election does not take it back").isTrue();
  }

  private static Throwable refusal(StateReader reader) {
    Throwable refused = reader.read(true, txn -> "stale").handle((v, e) -> e).join();
    assertThat(StatusCodes.toStatus(refused).getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    return refused;
  }

  private static StatusResponse status(String leader, long commit, long applied) {
    return StatusResponse.newBuilder().setLeader(leader).setCommitIndex(commit).setAppliedIndex(applied).build();
  }
}
