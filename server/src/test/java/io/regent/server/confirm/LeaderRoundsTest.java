package io.regent.server.confirm;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.statemachine.proto.LeaseStatus;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.NameHolder;
import io.regent.statemachine.proto.Result;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The confirmation rounds ({@link LeaderRounds}, driven through the {@link Confirmer} façade) always end, whatever
 * the proposer does, and index their lease statuses and names; under the leadership lease a request is answered
 * without a round.
 */
class LeaderRoundsTest {
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

  @Test
  void aRoundCarriesTheNamesAskedOnceAndAtMostItsLimit() throws Exception {
    CompletableFuture<Result> held = new CompletableFuture<>();
    List<LogEntry> proposed = new CopyOnWriteArrayList<>();
    Confirmer confirmer = new Confirmer(entry -> {
      proposed.add(entry.build());
      Result.Builder r = Result.newBuilder().setIndex(9);
      entry.getConfirm().getQueryNamesList().forEach(n -> r.addNames(NameHolder.newBuilder().setName(n)));
      // the first round stays in flight, so that the reads below queue up for the second
      return proposed.size() == 1 ? held : CompletableFuture.completedFuture(r.build());
    });
    confirmer.confirm(List.of(), List.of());
    List<CompletableFuture<Confirmation>> reads = new ArrayList<>();
    for (int i = 0; i < Confirmer.MAX_NAMES_PER_ROUND + 10; i++) {
      reads.add(confirmer.confirmNames(List.of("name-" + i)));
      reads.add(confirmer.confirmNames(List.of("name-" + i)));
    }
    held.complete(Result.newBuilder().setIndex(8).build());
    Confirmation first = reads.get(0).get(5, TimeUnit.SECONDS);
    assertThat(proposed).hasSize(2);
    assertThat(proposed.get(1).getConfirm().getQueryNamesList()).hasSize(Confirmer.MAX_NAMES_PER_ROUND)
        .doesNotHaveDuplicates().startsWith("name-0", "name-1");
    assertThat(first.names()).containsKey("name-0");
    // a name the full round left out has no answer: its reader falls back to its replica
    Confirmation last = reads.get(reads.size() - 1).get(5, TimeUnit.SECONDS);
    assertThat(last.names()).doesNotContainKey("name-" + (Confirmer.MAX_NAMES_PER_ROUND + 9));
  }

  @Test
  void aRoundStuckOnAnOldLeaderIsRestartedWhenTheLeaderChanges() throws Exception {
    List<CompletableFuture<Result>> sent = new CopyOnWriteArrayList<>();
    Confirmer confirmer = new Confirmer(entry -> {
      CompletableFuture<Result> f = new CompletableFuture<>();
      sent.add(f);
      return f;
    });
    CompletableFuture<Confirmation> stuck = confirmer.confirmLeases(List.of(5L), List.of());
    CompletableFuture<Confirmation> queued = confirmer.confirmLeases(List.of(6L), List.of());
    assertThat(sent).hasSize(1); // the second waits for the round in flight

    confirmer.leaderChanged();
    // before the fix both waited until the first round's proposal timed out
    assertThat(sent).hasSize(2);
    sent.get(1).complete(Result.newBuilder().setIndex(11).build());
    assertThat(stuck.get(5, TimeUnit.SECONDS).result().getIndex()).isEqualTo(11);
    assertThat(queued.get(5, TimeUnit.SECONDS).result().getIndex()).isEqualTo(11);

    // the abandoned round's late failure ends nothing, and the next request starts a new round at once
    sent.get(0).completeExceptionally(new IllegalStateException("old leader timed out"));
    confirmer.confirm(List.of(), List.of());
    assertThat(sent).hasSize(3);
  }

  @Test
  void aRoundsEntryStaysWithinItsByteLimitAndTheRestGoIntoTheNextRound() throws Exception {
    List<LogEntry> proposed = new CopyOnWriteArrayList<>();
    List<CompletableFuture<Result>> sent = new CopyOnWriteArrayList<>();
    Confirmer confirmer = new Confirmer(entry -> {
      proposed.add(entry.build());
      CompletableFuture<Result> f = new CompletableFuture<>();
      sent.add(f);
      return f;
    });
    confirmer.confirm(List.of(), List.of()); // holds the round in flight while the keepalives queue
    List<CompletableFuture<Confirmation>> calls = new ArrayList<>();
    long id = 1L << 40; // ids of a long-lived cluster: 6-byte varints
    for (int call = 0; call < 10; call++) {
      List<Long> ids = new ArrayList<>();
      for (int i = 0; i < 10_000; i++) {
        ids.add(id++);
      }
      calls.add(confirmer.confirmLeases(ids, List.of()));
    }
    for (int round = 0; round < 10 && calls.stream().anyMatch(c -> !c.isDone()); round++) {
      sent.get(round).complete(Result.newBuilder().setIndex(round).build());
    }
    assertThat(calls).allMatch(CompletableFuture::isDone);
    // before the bound, the second round carried all 100 000 ids (about 0.8 MB) in one entry
    assertThat(proposed.size()).isGreaterThan(2);
    assertThat(proposed).allMatch(e -> e.getSerializedSize() <= Confirmer.MAX_ROUND_BYTES);
    assertThat(proposed.stream().mapToInt(e -> e.getConfirm().getRenewLeaseIdsCount()).sum()).isEqualTo(100_000);
  }

  @Test
  void underTheLeadershipLeaseARequestIsAnsweredWithoutAnEntryAndTheLeaseIsRenewedInItsSecondHalf()
      throws Exception {
    AtomicLong now = new AtomicLong(1);
    LeadershipLease lease = leaderLease(now);
    List<LogEntry> proposed = new CopyOnWriteArrayList<>();
    List<Long> answeredLocally = new CopyOnWriteArrayList<>();
    Confirmer confirmer = new Confirmer(entry -> {
      proposed.add(entry.build());
      return CompletableFuture.completedFuture(Result.newBuilder().setIndex(proposed.size()).setTerm(3).build());
    }, lease, (term, entry) -> {
      answeredLocally.add(term);
      return Confirmation.of(Result.newBuilder().setIndex(100).build());
    }, null);
    assertThat(confirmer.confirm(List.of(), List.of()).get(5, TimeUnit.SECONDS).getIndex()).isEqualTo(1);
    assertThat(proposed).hasSize(1); // no lease yet: a round, which gives one (800 ms from before it)

    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(300));
    assertThat(confirmer.confirm(List.of(7L), List.of()).get(5, TimeUnit.SECONDS).getIndex()).isEqualTo(100);
    assertThat(proposed).hasSize(1);
    assertThat(answeredLocally).containsExactly(3L);

    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(200)); // in its second half: answered, and renewed by a round
    assertThat(confirmer.confirm(List.of(), List.of()).get(5, TimeUnit.SECONDS).getIndex()).isEqualTo(100);
    assertThat(proposed).hasSize(2);

    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(900)); // lapsed: the request waits for a round
    assertThat(confirmer.confirm(List.of(), List.of()).get(5, TimeUnit.SECONDS).getIndex()).isEqualTo(3);
  }

  /**
   * The state read under the lease may come from before a new leader's writes if the lease lapsed during the
   * read: the local answer is then dropped and a round answers (the re-check after the read).
   */
  @Test
  void aLeaseThatLapsesWhileTheStateIsReadGivesNoLocalAnswer() throws Exception {
    AtomicLong now = new AtomicLong(1);
    LeadershipLease lease = leaderLease(now);
    List<LogEntry> proposed = new CopyOnWriteArrayList<>();
    Confirmer confirmer = new Confirmer(entry -> {
      proposed.add(entry.build());
      return CompletableFuture.completedFuture(Result.newBuilder().setIndex(proposed.size()).setTerm(3).build());
    }, lease, (term, entry) -> {
      now.addAndGet(TimeUnit.MILLISECONDS.toNanos(900)); // the read outlasts the lease
      return Confirmation.of(Result.newBuilder().setIndex(100).build());
    }, null);
    assertThat(confirmer.confirm(List.of(), List.of()).get(5, TimeUnit.SECONDS).getIndex()).isEqualTo(1);
    assertThat(lease.heldTerm()).as("control: the round gave a lease").isEqualTo(3);

    assertThat(confirmer.confirm(List.of(7L), List.of()).get(5, TimeUnit.SECONDS).getIndex())
        .as("answered by a round, not by the read that outlasted the lease").isEqualTo(2);
    assertThat(proposed).hasSize(2);
  }

  /** The lease of the ready leader of term 3 on clock {@code now}: 800 ms from each round's start. */
  private static LeadershipLease leaderLease(AtomicLong now) {
    return new LeadershipLease(now::get, new LeadershipLease.Leadership() {
      @Override
      public long readyTerm() {
        return 3;
      }

      @Override
      public long currentTerm() {
        return 3;
      }
    }, 1_000, 0.8);
  }
}
