package io.regent.server.raft;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.statemachine.proto.LeaseStatus;
import io.regent.statemachine.proto.Result;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Confirmation rounds always end, whatever the proposer does, and index their lease statuses. */
class ConfirmerTest {
  @Test
  void aProposerThatThrowsFailsThatRoundButNotTheNext() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    Confirmer confirmer = new Confirmer(entry -> {
      if (calls.getAndIncrement() == 0) {
        throw new IllegalStateException("client closed");
      }
      return CompletableFuture.completedFuture(Result.newBuilder().setIndex(42).build());
    });
    CompletableFuture<Result> first = confirmer.confirm(List.of(), List.of());
    assertThat(first).isCompletedExceptionally();
    // Before the fix the round stayed "in flight" for ever and this one never completed.
    assertThat(confirmer.confirm(List.of(), List.of()).get(5, TimeUnit.SECONDS).getIndex()).isEqualTo(42);
  }

  @Test
  void aRoundIndexesTheStatusOfEveryLeaseItCarried() throws Exception {
    Confirmer confirmer = new Confirmer(entry -> {
      Result.Builder r = Result.newBuilder().setIndex(7);
      entry.getConfirm().getRenewLeaseIdsList().forEach(id ->
          r.addLeases(LeaseStatus.newBuilder().setId(id).setAlive(id % 2 == 0).setTtlMs(3_000)));
      return CompletableFuture.completedFuture(r.build());
    });
    Confirmation c = confirmer.confirmLeases(List.of(2L, 3L, 4L), List.of()).get(5, TimeUnit.SECONDS);
    assertThat(c.leases()).containsOnlyKeys(2L, 3L, 4L);
    assertThat(c.leases().get(3L).getAlive()).isFalse();
    assertThat(c.leases().get(4L).getTtlMs()).isEqualTo(3_000);
  }
}
