package io.regent.server.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A cleanup runs again, after longer and longer pauses, only while it could not be committed. */
class CleanupsTest {
  private final List<Long> pauses = new ArrayList<>();
  private final Cleanups cleanups = new Cleanups(ms -> {
    pauses.add(ms);
    return Runnable::run;
  });
  private final AtomicInteger runs = new AtomicInteger();

  private static CompletableFuture<?> unavailable() {
    return CompletableFuture.failedFuture(new Proposer.UnavailableException("no quorum", null));
  }

  @Test
  void aCleanupThatCommitsRunsOnce() {
    cleanups.run("withdrawing", () -> {
      runs.incrementAndGet();
      return CompletableFuture.completedFuture(null);
    });
    assertThat(runs).hasValue(1);
    assertThat(pauses).isEmpty();
  }

  @Test
  void aCleanupThatCouldNotCommitRunsAgainAfterPausesThatDoubleUpToFiveSeconds() {
    cleanups.run("withdrawing", () -> runs.incrementAndGet() < 9 ? unavailable()
        : CompletableFuture.completedFuture(null));
    assertThat(runs).hasValue(9);
    assertThat(pauses).containsExactly(100L, 200L, 400L, 800L, 1_600L, 3_200L, 5_000L, 5_000L);
  }

  @Test
  void aCleanupThatNeverCommitsEndsAfterItsLastRun() {
    cleanups.run("withdrawing", () -> {
      runs.incrementAndGet();
      return unavailable();
    });
    assertThat(runs).hasValue(Cleanups.MAX_RUNS);
    assertThat(pauses.stream().mapToLong(Long::longValue).sum()).isBetween(240_000L, 330_000L);
  }

  @Test
  void aCleanupRefusedForAnotherReasonOrThrowingIsNotRunAgain() {
    cleanups.run("withdrawing", () -> {
      runs.incrementAndGet();
      return CompletableFuture.failedFuture(new IllegalStateException("closed"));
    });
    cleanups.run("withdrawing", () -> {
      runs.incrementAndGet();
      throw new IllegalStateException("closed");
    });
    assertThat(runs).hasValue(2);
    assertThat(pauses).isEmpty();
  }
}
